import Foundation

/// Reads and writes single lines of JSON with one configured decoder and encoder.
package struct JSONLineCoder {
    package init() {}

    private let decoder = JSONDecoder()
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// How deeply arrays and objects may nest in one line. Decoding a JSON value
    /// recurses once per level; an object's values and a composite attribute need a
    /// handful, and a bound keeps a hostile line from reaching the decoder's own limits.
    package static let maximumDepth = 100

    /// Parses one line, or says in a sentence why it is not JSON.
    package func decode(_ line: some DataProtocol) throws(LineProblem) -> JSONValue {
        if let position = Self.positionPastMaximumDepth(line) {
            throw LineProblem("JSON nested more than \(Self.maximumDepth) levels deep (at byte \(position + 1))")
        }
        do {
            return try decoder.decode(JSONValue.self, from: Data(line))
        } catch let DecodingError.dataCorrupted(context) {
            let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            throw LineProblem("not valid JSON" + (underlying.map { ": \($0)" } ?? ""))
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            // Every JSON value decodes, so a mismatch is a value the parser would not
            // take: a string with an unpaired surrogate, a number beyond a Double.
            let place = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw LineProblem("not valid JSON" + (place.isEmpty ? "" : " at \"\(place)\"") + ": a string that is not valid Unicode, or a number out of range")
        } catch {
            throw LineProblem("not valid JSON: \(error)")
        }
    }

    /// The offset of the first `[` or `{` that opens level `maximumDepth + 1`, or nil.
    /// One pass, no recursion: brackets inside strings do not count.
    package static func positionPastMaximumDepth(_ line: some DataProtocol) -> Int? {
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

    package func encode(_ value: JSONValue) throws -> Data {
        try encoder.encode(value)
    }
}
