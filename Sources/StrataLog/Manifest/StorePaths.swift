import Glibc

/// Every file name of a store, built in one place (FORMAT.md §1).
struct StorePaths: Sendable {
    let root: String

    init(_ root: String) {
        var trimmed = root
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.root = trimmed
    }

    var manifest: String { root + "/MANIFEST" }
    /// The directory that holds the store directory.
    var parent: String {
        guard let slash = root.lastIndex(of: "/") else { return "." }
        return slash == root.startIndex ? "/" : String(root[..<slash])
    }
    /// The store directory's own name, its path's last component.
    var name: String {
        root.lastIndex(of: "/").map { String(root[root.index(after: $0)...]) } ?? root
    }

    /// Whether `path` lies in this store's directory (or is it), judged with links and
    /// `.`/`..` resolved as far as both exist on disk: `other/../store/segments/x` and a
    /// link to the store lie in it as much as `store/segments/x` does.
    func contains(_ path: String) -> Bool {
        let store = Self.resolved(root)
        let other = Self.resolved(path)
        return other == store || other.hasPrefix(store == "/" ? "/" : store + "/")
    }

    /// `path` with its existing head resolved by `realpath` (links, `.`, `..`) and the
    /// rest appended as written, once normalised.
    static func resolved(_ path: String) -> String {
        var head = path.isEmpty ? "." : path
        var tail: [String] = []
        while true {
            if let real = realpath(head, nil) {
                defer { free(real) }
                var result = String(cString: real)
                for part in tail.reversed() where part != "." && !part.isEmpty {
                    if part == ".." {
                        result = StorePaths(result).parent
                    } else {
                        result += (result == "/" ? "" : "/") + part
                    }
                }
                return result
            }
            let paths = StorePaths(head)
            guard !paths.name.isEmpty, paths.parent != paths.root else { return path }
            tail.append(paths.name)
            head = paths.parent
        }
    }

    var manifestTemp: String { root + "/MANIFEST.tmp" }
    var lock: String { root + "/LOCK" }
    var segments: String { root + "/segments" }
    var blobs: String { root + "/blobs" }
    var index: String { root + "/index" }
    /// Where a migration writes the new store before it replaces this one (FORMAT.md §10).
    var staging: String { root + "/staging" }

    func segment(_ id: UInt32) -> String { segments + "/" + Self.number(id) + ".seg" }
    func blob(_ id: UInt32) -> String { blobs + "/" + Self.number(id) + ".blob" }
    /// A format-1 hint file (FORMAT.md §12), read only to upgrade a store.
    func hint(_ id: UInt32) -> String { index + "/" + Self.number(id) + ".hint" }
    /// A sealed segment's index file (FORMAT.md §7).
    func indexFile(_ id: UInt32) -> String { index + "/" + Self.number(id) + ".idx" }

    /// Six digits, zero-padded (more when the number needs them).
    static func number(_ id: UInt32) -> String {
        let digits = String(id)
        return digits.count >= 6 ? digits : String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// The number in a file name such as `000012.seg`, or nil for a name we did not write.
    static func parseNumber(_ name: String, suffix: String) -> UInt32? {
        guard name.hasSuffix(suffix) else { return nil }
        let digits = name.dropLast(suffix.count)
        guard digits.count >= 6, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return UInt32(digits)
    }
}
