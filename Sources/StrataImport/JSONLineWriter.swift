import Foundation

/// Writes JSON Lines into a byte buffer, byte for byte as `JSONLineCoder.encode` (a
/// `JSONEncoder` with sorted keys and unescaped slashes) writes the same values, but
/// without building a dictionary per line: `strata export` states each entity's key
/// order once (``keyOrder(_:)``) and appends the values in it.
///
/// Scalars are written here; nested objects and arrays other than the few shapes an
/// export writes on every line (`{"@base64": …}`, `{"@id": …}` and lists of them) are
/// handed to the encoder itself, so their key order is the encoder's by construction.
///
/// ```swift
/// var writer = JSONLineWriter()
/// writer.append(raw: "{")
/// writer.appendKey("name")
/// try writer.append(.string("Ada"))
/// writer.append(raw: "}\n")     // writer.bytes: {"name":"Ada"}⏎
/// ```
package struct JSONLineWriter {
    /// What has been written so far.
    package private(set) var bytes: [UInt8] = []
    private let coder = JSONLineCoder()

    package init() {
        bytes.reserveCapacity(1 << 17)
    }

    /// Forgets what was written, keeping the buffer's capacity.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends text that is already JSON (punctuation, a pre-encoded key).
    package mutating func append(raw text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends bytes that are already JSON.
    package mutating func append(raw data: [UInt8]) {
        bytes.append(contentsOf: data)
    }

    /// Appends `"key":`.
    package mutating func appendKey(_ key: String) {
        appendString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends the value as the encoder writes it.
    ///
    /// - Throws: What `JSONEncoder` throws for a nested value it cannot encode.
    package mutating func append(_ value: JSONValue) throws {
        switch value {
        case .null: append(raw: "null")
        case .bool(let flag): flag ? append(raw: "true") : append(raw: "false")
        case .integer(let number): appendInteger(number)
        case .number(let number): appendDouble(number)
        case .string(let text): appendString(text)
        case .object(let fields) where fields.count == 1:
            // One key needs no order: `{"@id": …}`, `{"@base64": …}`.
            guard let (key, inner) = fields.first, !inner.isContainer else {
                bytes.append(contentsOf: try coder.encode(value))
                return
            }
            bytes.append(UInt8(ascii: "{"))
            appendKey(key)
            try append(inner)
            bytes.append(UInt8(ascii: "}"))
        case .array(let items) where !items.contains(where: \.isDeepContainer):
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try append(item)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object, .array:
            bytes.append(contentsOf: try coder.encode(value))
        }
    }

    /// Appends a decimal integer.
    package mutating func appendInteger(_ number: Int64) {
        if number >= 0 && number < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(number))
            return
        }
        var magnitude = number.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let count = withUnsafeMutableBytes(of: &digits) { buffer -> Int in
            var end = buffer.count
            repeat {
                end -= 1
                buffer[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if number < 0 {
                end -= 1
                buffer[end] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[end...]))
            return buffer.count - end
        }
        _ = count
    }

    /// Appends a finite double as the encoder does: its shortest round-trip text,
    /// without a trailing ".0".
    package mutating func appendDouble(_ number: Double) {
        if number.isFinite, number == number.rounded(.towardZero), abs(number) < 1e15 {
            appendInteger(Int64(number))
            if number == 0 && number.sign == .minus {
                // -0.0 prints "-0".
                bytes.insert(UInt8(ascii: "-"), at: bytes.count - 1)
            }
            return
        }
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends a string in quotes, escaped as the encoder escapes: `"` and `\`,
    /// control characters (`\b \f \n \r \t`, else `\u00XX`); `/` and everything else
    /// as it is.
    package mutating func appendString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The order in which the encoder writes an object's keys: positions into `keys`.
    ///
    /// - Throws: What `JSONEncoder` throws (it does not for string keys).
    package static func keyOrder(_ keys: [String]) throws -> [Int] {
        var probe: [String: JSONValue] = [:]
        for (index, key) in keys.enumerated() { probe[key] = .integer(Int64(index)) }
        let encoded = try JSONLineCoder().encode(.object(probe))
        let decoded = try JSONLineCoder().decode(encoded)
        // Read the positions back in the order the encoder wrote them.
        var order: [Int] = []
        let bytes = Array(encoded)
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONLineScanner(buffer)
            guard scanner.consume(UInt8(ascii: "{")) else { return }
            while true {
                scanner.skipWhitespace()
                guard scanner.string() != nil, scanner.consume(UInt8(ascii: ":")),
                      case .integer(let position)? = scanner.number() else { return }
                order.append(Int(position))
                guard scanner.consume(UInt8(ascii: ",")) else { return }
            }
        }
        guard order.count == keys.count, case .object(let fields) = decoded, fields.count == keys.count else {
            throw LineProblem("the encoder's key order could not be read back")
        }
        return order
    }
}

extension JSONValue {
    var isContainer: Bool {
        switch self {
        case .object, .array: true
        default: false
        }
    }

    /// An object of more than one key, or any container holding a container.
    var isDeepContainer: Bool {
        switch self {
        case .object(let fields): fields.count != 1 || fields.values.contains(where: \.isContainer)
        case .array(let items): items.contains(where: \.isContainer)
        default: false
        }
    }
}
