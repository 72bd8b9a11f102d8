import Foundation

/// A JSON document as the object layer's metadata holds it (`strata.schema`,
/// `strata.edges`, `strata.layouts`: FORMAT.md §11.1, §11.4), decoded strictly (a
/// number never reads as a bool) so that an edit changes exactly one thing and the
/// unedited document encodes back to one the store reads the same.
indirect enum DamageJSON: Codable, Equatable {
    case object([String: DamageJSON])
    case array([DamageJSON])
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case null

    /// One step of a path into a document.
    enum Step: Equatable {
        case key(String)
        case index(Int)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([DamageJSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: DamageJSON].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .object(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    static func decode(_ bytes: [UInt8]) -> DamageJSON? { try? JSONDecoder().decode(DamageJSON.self, from: Data(bytes)) }

    var encoded: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? Array(encoder.encode(self))) ?? []
    }

    subscript(path: [Step]) -> DamageJSON? {
        guard let first = path.first else { return self }
        switch (self, first) {
        case (.object(let members), .key(let key)): return members[key]?[Array(path.dropFirst())]
        case (.array(let items), .index(let index)) where items.indices.contains(index): return items[index][Array(path.dropFirst())]
        default: return nil
        }
    }

    /// The document with the value at `path` replaced (nil: removed, from an object
    /// or an array).
    func replacing(_ path: [Step], with value: DamageJSON?) -> DamageJSON {
        guard let first = path.first else { return value ?? .null }
        let rest = Array(path.dropFirst())
        switch (self, first) {
        case (.object(var members), .key(let key)):
            if rest.isEmpty { members[key] = value } else if let member = members[key] { members[key] = member.replacing(rest, with: value) }
            return .object(members)
        case (.array(var items), .index(let index)) where items.indices.contains(index):
            if rest.isEmpty {
                if let value { items[index] = value } else { items.remove(at: index) }
            } else {
                items[index] = items[index].replacing(rest, with: value)
            }
            return .array(items)
        default:
            return self
        }
    }

    /// Every path in the document, parents before children, object keys sorted.
    func paths(_ prefix: [Step] = []) -> [[Step]] {
        var result: [[Step]] = []
        switch self {
        case .object(let members):
            for key in members.keys.sorted() {
                result.append(prefix + [.key(key)])
                result += members[key]!.paths(prefix + [.key(key)])
            }
        case .array(let items):
            for index in items.indices {
                result.append(prefix + [.index(index)])
                result += items[index].paths(prefix + [.index(index)])
            }
        default:
            break
        }
        return result
    }
}
