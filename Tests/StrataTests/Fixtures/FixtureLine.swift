import Foundation
import Strata

/// One line of a fixture's data file: an object as `strata import` was given it.
///
/// Read here on its own terms (README "JSON Lines": numbers, ISO 8601 dates,
/// `{"@base64": …}`, `{"@ref": …}`) rather than with the CLI's code, so that the
/// import that built the store is checked, not trusted.
struct FixtureLine: Sendable {
    /// The line's number in its file, for messages.
    let number: Int
    let entity: String
    /// The line's `@ref`: the name other lines link to it by.
    let ref: String?
    /// Attributes and relationships, without the `@` keys.
    let fields: [String: FixtureJSON]

    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static func read(_ path: String) throws -> [FixtureLine] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var lines: [FixtureLine] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.allSatisfy(\.isWhitespace) {
            let json = try JSONDecoder().decode(FixtureJSON.self, from: Data(line.utf8))
            guard case .object(var fields) = json, case .string(let entity)? = fields.removeValue(forKey: "@entity") else {
                throw Problem(description: "\(path):\(index + 1): not an object with an @entity")
            }
            var ref: String?
            if case .string(let name)? = fields.removeValue(forKey: "@ref") { ref = name }
            lines.append(FixtureLine(number: index + 1, entity: entity, ref: ref, fields: fields))
        }
        return lines
    }

    /// The `@ref` names a relationship field links to: none for an absent or null field.
    func targets(_ key: String) -> [String] {
        func name(_ json: FixtureJSON) -> String? {
            guard case .object(let link) = json, case .string(let name)? = link["@ref"] else { return nil }
            return name
        }
        switch fields[key] {
        case .array(let items)?: return items.compactMap(name)
        case let item?: return name(item).map { [$0] } ?? []
        case nil: return []
        }
    }

    func string(_ key: String) -> String? {
        guard case .string(let text)? = fields[key] else { return nil }
        return text
    }

    func date(_ key: String) throws -> Date? {
        guard let text = string(key) else { return nil }
        return try Self.date(text)
    }

    func data(_ key: String) throws -> Data? {
        guard case .object(let wrapper)? = fields[key] else { return nil }
        guard case .string(let text)? = wrapper["@base64"], let data = Data(base64Encoded: text) else {
            throw Problem(description: "line \(number): \(key) is not {\"@base64\": …}")
        }
        return data
    }

    /// The value the store should hold for `attribute`: what the line gives, else the
    /// attribute's default, else null.
    func value(of attribute: AttributeDescription) throws -> Value {
        guard let json = fields[attribute.name] else { return attribute.defaultValue ?? .null }
        let problem = Problem(description: "line \(number): \(entity).\(attribute.name) (\(attribute.type.rawValue)) cannot be \(json)")
        switch (attribute.type, json) {
        case (_, .null):
            return .null
        case (.string, .string(let text)):
            return .string(text)
        case (.bool, .bool(let flag)):
            return .bool(flag)
        case (.int16, .integer(let number)), (.int32, .integer(let number)), (.int64, .integer(let number)):
            return .int(number)
        case (.double, .integer(let number)), (.float, .integer(let number)):
            return .double(Double(number))
        case (.double, .number(let number)), (.float, .number(let number)):
            return .double(number)
        case (.date, .string(let text)):
            return .date(try Self.date(text))
        case (.binary, _):
            guard let data = try data(attribute.name) else { throw problem }
            return .binary(data)
        default:
            throw problem
        }
    }

    /// ISO 8601 with a zone, and a fraction of a second of any length: the formatter
    /// keeps milliseconds only, so the fraction is added here.
    static func date(_ text: String) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        var whole = text
        var fraction = 0.0
        if let dot = text.firstIndex(of: ".") {
            let digits = text[text.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
            fraction = Double("0." + digits) ?? 0
            whole = String(text[..<dot]) + String(text[digits.endIndex...])
        }
        guard let date = formatter.date(from: whole) else {
            throw Problem(description: "\(text) is not an ISO 8601 date")
        }
        return Date(timeIntervalSince1970: date.timeIntervalSince1970 + fraction)
    }
}

/// A JSON value as the fixture files hold it.
enum FixtureJSON: Decodable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([FixtureJSON])
    case object([String: FixtureJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Int64.self) {
            self = .integer(number)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let items = try? container.decode([FixtureJSON].self) {
            self = .array(items)
        } else {
            self = .object(try container.decode([String: FixtureJSON].self))
        }
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .integer(let number): "\(number)"
        case .number(let number): "\(number)"
        case .string(let text): "\"\(text.prefix(40))\""
        case .array(let items): "a list of \(items.count)"
        case .object(let fields): "an object with \(fields.keys.sorted())"
        }
    }
}
