import Foundation

/// The byte-level half of ``JSONLineDecoder``: whitespace, strings, numbers and small
/// nested values of one line, read in place from its bytes.
///
/// The scanner accepts a strict subset of what Foundation's `JSONDecoder` accepts and
/// gives the same values for it; for anything else (a syntax error, a lone surrogate,
/// invalid UTF-8, a duplicate key, a number in a nested value, nesting deeper than
/// ``JSONLineCoder/maximumDepth``) it answers nil, and the decoder hands the line to
/// the reference path, which reports the problem in the words it always has.
struct JSONLineScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    var atEnd: Bool { position >= bytes.count }

    /// The byte at the position, or 0 at the end (0 is never valid outside a string).
    var peek: UInt8 { position < bytes.count ? bytes[position] : 0 }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Consumes `byte` (after whitespace); false when it is not next.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard peek == byte else { return false }
        position += 1
        return true
    }

    /// Consumes a literal such as `true`; false when it is not next.
    mutating func consumeLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        let start = literal.utf8Start
        for i in 0..<count where bytes[position + i] != start[i] { return false }
        position += count
        return true
    }

    // MARK: Strings

    /// The raw bytes of a key without escapes (the position at its opening quote), or
    /// nil for a key with escapes or anything that is not a string.
    mutating func plainKey() -> Range<Int>? {
        guard peek == UInt8(ascii: "\"") else { return nil }
        let start = position + 1
        var i = start
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                position = i + 1
                return start..<i
            }
            // Escapes and control characters: the reference path decides.
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            i += 1
        }
        return nil
    }

    /// A string value (the position at its opening quote), or nil when it is not a
    /// valid JSON string of valid UTF-8.
    mutating func string() -> String? {
        guard peek == UInt8(ascii: "\"") else { return nil }
        let start = position + 1
        var i = start
        var ascii = true
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                position = i + 1
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<i])
                if ascii { return String(decoding: raw, as: UTF8.self) }
                return String(validating: raw, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            if byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            i += 1
        }
        return nil
    }

    /// The slow half of `string()`: a string with escapes, decoded into a buffer.
    private mutating func escapedString(from start: Int) -> String? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(32)
        var i = start
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "\""):
                position = i + 1
                return String(validating: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard i + 1 < bytes.count else { return nil }
                let escape = bytes[i + 1]
                i += 2
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    guard let unit = hex4(at: i) else { return nil }
                    i += 4
                    var scalarValue = UInt32(unit)
                    if (0xD800..<0xDC00).contains(unit) {
                        // A high surrogate must be followed by an escaped low one.
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u"),
                              let low = hex4(at: i + 2), (0xDC00..<0xE000).contains(low) else { return nil }
                        i += 6
                        scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(unit) {
                        return nil
                    }
                    guard let scalar = Unicode.Scalar(scalarValue) else { return nil }
                    decoded.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    return nil
                }
            default:
                if byte < 0x20 { return nil }
                decoded.append(byte)
                i += 1
            }
        }
        return nil
    }

    private func hex4(at offset: Int) -> UInt16? {
        guard offset + 4 <= bytes.count else { return nil }
        var value: UInt16 = 0
        for i in offset..<(offset + 4) {
            let byte = bytes[i]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    // MARK: Numbers

    /// A number as JSON writes it (the position at its first byte).
    enum Number {
        /// An integer literal that fits in 64 bits.
        case integer(Int64)
        /// Any other number: its bytes, read as a `Double` only where one is wanted.
        case other(Range<Int>)
    }

    /// A number that follows JSON's grammar exactly, or nil.
    mutating func number() -> Number? {
        let start = position
        var i = position
        var negative = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        let digitsStart = i
        guard i < bytes.count, Self.isDigit(bytes[i]) else { return nil }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            // A leading zero stands alone ("01" is not JSON).
            if i < bytes.count, Self.isDigit(bytes[i]) { return nil }
        } else {
            while i < bytes.count, Self.isDigit(bytes[i]) { i += 1 }
        }
        let digitsEnd = i
        var plain = true
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            plain = false
            i += 1
            guard i < bytes.count, Self.isDigit(bytes[i]) else { return nil }
            while i < bytes.count, Self.isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            plain = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, Self.isDigit(bytes[i]) else { return nil }
            while i < bytes.count, Self.isDigit(bytes[i]) { i += 1 }
        }
        position = i
        if plain, digitsEnd - digitsStart <= 18 {
            // At most 18 digits cannot overflow; longer ones take the general path.
            var value: Int64 = 0
            for j in digitsStart..<digitsEnd { value = value * 10 + Int64(bytes[j] - UInt8(ascii: "0")) }
            return .integer(negative ? -value : value)
        }
        if plain {
            var value: Int64 = 0
            var overflow = false
            for j in digitsStart..<digitsEnd {
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let digit = Int64(bytes[j] - UInt8(ascii: "0"))
                let (sum, o2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                if o1 || o2 { overflow = true; break }
                value = sum
            }
            if !overflow { return .integer(value) }
        }
        return .other(start..<i)
    }

    /// The `Double` a number's bytes stand for, as `JSONDecoder` reads it: nil when it
    /// is not finite, or is zero only by underflow (the reference path decides those).
    func double(_ range: Range<Int>) -> Double? {
        guard range.count < 64 else { return nil }
        var text = [CChar](repeating: 0, count: range.count + 1)
        for (i, j) in range.enumerated() { text[i] = CChar(bitPattern: bytes[j]) }
        let value = text.withUnsafeBufferPointer { strtod($0.baseAddress!, nil) }
        guard value.isFinite else { return nil }
        if value == 0 {
            // "0.0" and "-0e5" are 0 (JSONDecoder reads an integral number as an
            // integer first, so never -0); "1e-400" underflowed: not ours to judge.
            for j in range {
                let byte = bytes[j]
                if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { break }
                if Self.isDigit(byte), byte != UInt8(ascii: "0") { return nil }
            }
            return 0
        }
        return value
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: Nested values

    /// A nested value of strings, `true`, `false`, `null`, objects and arrays (what
    /// relationship targets and `{"@base64": …}` hold), or nil for anything else: a
    /// number, a duplicate key, nesting past `depthLeft`.
    mutating func nested(depthLeft: Int) -> JSONValue? {
        skipWhitespace()
        switch peek {
        case UInt8(ascii: "\""):
            return string().map(JSONValue.string)
        case UInt8(ascii: "n"):
            return consumeLiteral("null") ? .null : nil
        case UInt8(ascii: "t"):
            return consumeLiteral("true") ? .bool(true) : nil
        case UInt8(ascii: "f"):
            return consumeLiteral("false") ? .bool(false) : nil
        case UInt8(ascii: "["):
            guard depthLeft > 0 else { return nil }
            position += 1
            var items: [JSONValue] = []
            if consume(UInt8(ascii: "]")) { return .array(items) }
            while true {
                guard let item = nested(depthLeft: depthLeft - 1) else { return nil }
                items.append(item)
                if consume(UInt8(ascii: ",")) { continue }
                return consume(UInt8(ascii: "]")) ? .array(items) : nil
            }
        case UInt8(ascii: "{"):
            guard depthLeft > 0 else { return nil }
            position += 1
            var fields: [String: JSONValue] = [:]
            if consume(UInt8(ascii: "}")) { return .object(fields) }
            while true {
                skipWhitespace()
                guard let key = string(), consume(UInt8(ascii: ":")),
                      let value = nested(depthLeft: depthLeft - 1) else { return nil }
                guard fields.updateValue(value, forKey: key) == nil else { return nil }
                if consume(UInt8(ascii: ",")) { continue }
                return consume(UInt8(ascii: "}")) ? .object(fields) : nil
            }
        default:
            return nil
        }
    }
}
