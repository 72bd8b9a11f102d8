import Foundation
import Strata

/// The JSON Lines form of attribute values, shared by `import` and `export`
/// (README "JSON Lines"):
///
/// | type | JSON |
/// | --- | --- |
/// | bool | `true` / `false` |
/// | int16, int32, int64 | an integer (checked against the width) |
/// | float, double | a number, or `"NaN"`, `"Infinity"`, `"-Infinity"` |
/// | decimal | a string such as `"12.50"` (exact) or a number |
/// | string | a string |
/// | date | an ISO 8601 string (`"2024-05-01T12:00:00Z"`), or seconds since 1970 |
/// | binary | `{"@base64": "…"}` |
/// | uuid, url | a string |
/// | composite | the JSON of the composite itself |
/// | transformable | `{"@base64": "…"}`, the transformer's bytes exactly; with the built-in `JSON` transformer, the JSON itself |
///
/// `null` clears an attribute.
package struct JSONLines {
    package init() {}

    /// The key of an object's entity.
    package static let entityKey = "@entity"
    /// The key of a local name that relationships of the same import refer to.
    package static let refKey = "@ref"
    /// The key of an object URI (exported objects; relationship targets).
    package static let idKey = "@id"
    /// The key of a binary value's base64 text.
    package static let base64Key = "@base64"

    private let dates = DateText()
    private let coder = JSONLineCoder()

    // MARK: Import

    /// The value of `attribute` that `json` stands for.
    ///
    /// - Throws: A `LineProblem` naming the attribute, its type and what was given.
    package func value(_ json: JSONValue, for attribute: AttributeDescription, of entity: String) throws(LineProblem) -> Value {
        func mismatch(_ hint: String = "") -> LineProblem {
            LineProblem("\(entity).\(attribute.name) is \(attribute.type.rawValue), got \(json.kindDescription)\(Self.sample(json))" + hint)
        }
        switch (attribute.type, json) {
        case (_, .null):
            return .null
        case (.bool, .bool(let value)):
            return .bool(value)
        case (.int16, .integer(let value)), (.int32, .integer(let value)), (.int64, .integer(let value)):
            let range: ClosedRange<Int64> = switch attribute.type {
            case .int16: Int64(Int16.min)...Int64(Int16.max)
            case .int32: Int64(Int32.min)...Int64(Int32.max)
            default: Int64.min...Int64.max
            }
            guard range.contains(value) else {
                throw LineProblem("\(entity).\(attribute.name) is \(attribute.type.rawValue): \(value) is out of range")
            }
            return .int(value)
        case (.float, .integer(let value)), (.double, .integer(let value)):
            return .double(Double(value))
        case (.float, .number(let value)), (.double, .number(let value)):
            return .double(value)
        case (.float, .string(let text)), (.double, .string(let text)):
            switch text {
            case "NaN": return .double(.nan)
            case "Infinity": return .double(.infinity)
            case "-Infinity": return .double(-.infinity)
            default: throw mismatch(" (strings allowed: NaN, Infinity, -Infinity)")
            }
        case (.decimal, .string(let text)):
            guard let value = Self.exactDecimal(text) else { throw mismatch(" that is not a decimal number") }
            return .decimal(value)
        case (.decimal, .integer(let value)):
            return .decimal(Decimal(value))
        case (.decimal, .number(let value)):
            // The shortest text of the Double ("0.1"), not its binary expansion.
            guard let decimal = Self.exactDecimal("\(value)") else { throw mismatch() }
            return .decimal(decimal)
        case (.string, .string(let text)):
            return .string(text)
        case (.date, .string(let text)):
            guard let date = dates.date(from: text) else { throw mismatch(" that is not an ISO 8601 date such as 2024-05-01T12:00:00Z") }
            return .date(date)
        case (.date, .integer(let seconds)):
            return .date(Date(timeIntervalSince1970: TimeInterval(seconds)))
        case (.date, .number(let seconds)):
            return .date(Date(timeIntervalSince1970: seconds))
        case (.binary, .object(let fields)):
            guard fields.count == 1, case .string(let text)? = fields[Self.base64Key] else {
                throw mismatch(" (binary values are written {\"@base64\": \"…\"})")
            }
            guard let data = Data(base64Encoded: text) else { throw LineProblem("\(entity).\(attribute.name): the @base64 text is not base64") }
            return .binary(data)
        case (.uuid, .string(let text)):
            guard let uuid = UUID(uuidString: text) else { throw mismatch(" that is not a UUID") }
            return .uuid(uuid)
        case (.url, .string(let text)):
            guard let url = URL(string: text) else { throw mismatch(" that is not a URL") }
            return .url(url)
        case (.transformable, .object(let fields)) where fields.count == 1 && fields[Self.base64Key] != nil:
            guard case .string(let text)? = fields[Self.base64Key], let data = Data(base64Encoded: text) else {
                throw LineProblem("\(entity).\(attribute.name): the @base64 text is not base64")
            }
            return .binary(data)
        case (.transformable, _) where attribute.valueTransformerName == JSONValueTransformer.name:
            do {
                return .binary(try coder.encode(json))
            } catch {
                throw LineProblem("\(entity).\(attribute.name): the JSON value cannot be encoded: \(error)")
            }
        case (.transformable, _):
            throw mismatch(" (values of transformer '\(attribute.valueTransformerName ?? "-")' are written {\"@base64\": \"…\"})")
        case (.composite, _):
            do {
                return .composite(try coder.encode(json))
            } catch {
                throw LineProblem("\(entity).\(attribute.name): the composite cannot be encoded: \(error)")
            }
        default:
            throw mismatch(attribute.type == .binary ? " (binary values are written {\"@base64\": \"…\"})" : "")
        }
    }

    // MARK: Export

    /// The JSON form of a stored value.
    package func json(_ value: Value) -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value): return .integer(value)
        case .double(let value):
            if value.isNaN { return .string("NaN") }
            if value.isInfinite { return .string(value < 0 ? "-Infinity" : "Infinity") }
            return .number(value)
        case .decimal(let value): return .string(NSDecimalNumber(decimal: value).stringValue)
        case .string(let value): return .string(value)
        case .date(let date): return .string(dates.string(from: date))
        case .binary(let data): return .object([Self.base64Key: .string(data.base64EncodedString())])
        case .uuid(let uuid): return .string(uuid.uuidString)
        case .url(let url): return .string(url.absoluteString)
        case .composite(let data):
            // A composite is JSON by contract; should one not parse, its text is kept
            // as a string rather than dropped.
            return (try? coder.decode(data)) ?? .string(String(decoding: data, as: UTF8.self))
        }
    }

    /// The JSON form of an attribute's stored value: as ``json(_:)``, except that a
    /// transformable attribute of the built-in JSON transformer shows its JSON (when
    /// its bytes parse), and any other transformable one its bytes as base64.
    package func json(_ value: Value, of attribute: AttributeDescription) -> JSONValue {
        if attribute.type == .transformable, attribute.valueTransformerName == JSONValueTransformer.name,
           case .binary(let data) = value, let parsed = try? coder.decode(data) {
            // An object of one "@base64" key would read back as bytes: keep it as bytes.
            if case .object(let fields) = parsed, fields.count == 1, fields[Self.base64Key] != nil { return json(value) }
            return parsed
        }
        return json(value)
    }

    // MARK: Helpers

    /// A short quote of the offending value for error messages.
    package static func sample(_ json: JSONValue) -> String {
        switch json {
        case .string(let text): return " \"\(text.count > 40 ? text.prefix(40) + "…" : text)\""
        case .integer(let value): return " \(value)"
        case .number(let value): return " \(value)"
        case .bool(let value): return " \(value)"
        default: return ""
        }
    }

    /// A decimal only when the whole text is one: `Decimal(string:)` alone accepts a
    /// prefix ("12abc" reads as 12).
    package static func exactDecimal(_ text: String) -> Decimal? {
        let allowed = Set("0123456789+-.eE")
        guard !text.isEmpty, text.allSatisfy(allowed.contains) else { return nil }
        let scanner = Scanner(string: text)
        scanner.locale = Locale(identifier: "en_US_POSIX")
        guard let value = scanner.scanDecimal(), scanner.isAtEnd else { return nil }
        return value
    }
}
