/// The rule for entity, property and renaming names: an ASCII identifier.
///
/// Names appear in predicates' key paths, in the canonical string behind the version
/// hash and in model files; keeping them to `[A-Za-z_][A-Za-z0-9_]*` means none of those
/// needs quoting or escaping, and byte order is the same everywhere.
enum ModelName {
    /// The longest name, in bytes. Names are repeated in every error, every key path
    /// and the canonical string behind the version hash; a model file from outside
    /// could otherwise make each of those megabytes long.
    static let maximumLength = 255

    /// `name` as error messages quote it: whole when short, its first 64 characters
    /// and an ellipsis otherwise, so a hostile name cannot swell every message.
    static func shown(_ name: String) -> String {
        name.utf8.count <= 100 ? name : String(name.prefix(64)) + "…"
    }

    /// Whether `name` is a non-empty ASCII identifier.
    static func isValid(_ name: String) -> Bool {
        var bytes = name.utf8.makeIterator()
        guard let first = bytes.next(), isLetter(first) || first == UInt8(ascii: "_") else {
            return false
        }
        while let byte = bytes.next() {
            guard isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "_") else { return false }
        }
        return true
    }

    /// Why `name` is not valid, for an error message; `nil` when it is valid.
    static func problem(with name: String, kind: String) -> String? {
        if name.isEmpty { return "the \(kind) name is empty" }
        if name.utf8.count > maximumLength {
            return "the \(kind) name is \(name.utf8.count) bytes long; names are at most \(maximumLength)"
        }
        if !isValid(name) {
            return "the \(kind) name '\(shown(name))' is not an identifier (ASCII letters, digits and _, not starting with a digit)"
        }
        return nil
    }

    /// Compares names by their UTF-8 bytes, the order the version hash is defined in.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
