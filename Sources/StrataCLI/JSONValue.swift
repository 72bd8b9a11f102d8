import Foundation

/// A JSON value as one line of a JSON Lines file holds it.
///
/// Decoding keeps integers apart from other numbers (so an `int64` attribute never
/// goes through a `Double` and loses digits) and `true`/`false` apart from numbers.
/// Encoding with `JSONEncoder` and `.sortedKeys` makes every exported line
/// deterministic: `"@entity"` and `"@id"` sort before property names.
enum JSONValue: Codable, Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// What kind of JSON value this is, for error messages ("got a string").
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .number: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// Reads and writes single lines of JSON with one configured decoder and encoder.
struct JSONLineCoder {
    private let decoder = JSONDecoder()
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// How deeply arrays and objects may nest in one line. Decoding a JSON value
    /// recurses once per level; an object's values and a composite attribute need a
    /// handful, and a bound keeps a hostile line from reaching the decoder's own limits.
    static let maximumDepth = 100

    /// Parses one line, or says in a sentence why it is not JSON.
    func decode(_ line: some DataProtocol) throws(LineProblem) -> JSONValue {
        if let position = Self.positionPastMaximumDepth(line) {
            throw LineProblem("JSON nested more than \(Self.maximumDepth) levels deep (at byte \(position + 1))")
        }
        do {
            return try decoder.decode(JSONValue.self, from: Data(line))
        } catch let DecodingError.dataCorrupted(context) {
            let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            throw LineProblem("not valid JSON" + (underlying.map { ": \($0)" } ?? ""))
        } catch {
            throw LineProblem("not valid JSON: \(error)")
        }
    }

    /// The offset of the first `[` or `{` that opens level `maximumDepth + 1`, or nil.
    /// One pass, no recursion: brackets inside strings do not count.
    static func positionPastMaximumDepth(_ line: some DataProtocol) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        var offset = 0
        for byte in line {
            defer { offset += 1 }
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximumDepth { return offset }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return nil
    }

    func encode(_ value: JSONValue) throws -> Data {
        try encoder.encode(value)
    }
}

/// Why one line of an import cannot be used; the import adds the line number.
struct LineProblem: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
