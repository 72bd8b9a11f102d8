/// A JSON scalar as a model file holds a default value or a range bound; what it
/// means depends on the attribute's type (docs/MODEL.md, "Values").
enum ModelFileScalar: Codable, Hashable {
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Bool before numbers, integers before doubles: an integer literal must keep
        // every digit of an Int64, which a Double would round.
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected a boolean, number or string")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        }
    }
}

extension ModelFileScalar {
    /// The scalar's JSON kind, for error messages.
    var kind: String {
        switch self {
        case .bool: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        }
    }
}
