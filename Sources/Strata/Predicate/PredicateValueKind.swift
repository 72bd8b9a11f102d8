/// The kind of value an expression yields, for checking comparisons against a model
/// before running them: two sides compare only when their kinds agree.
enum PredicateValueKind: String {
    case number
    case string
    case date
    case binary
    case uuid
    case url
    case composite
    /// A related object: compares with `nil` only.
    case object

    init(_ type: AttributeType) {
        switch type {
        case .bool, .int16, .int32, .int64, .float, .double, .decimal: self = .number
        case .string: self = .string
        case .date: self = .date
        case .binary, .transformable: self = .binary
        case .uuid: self = .uuid
        case .url: self = .url
        case .composite: self = .composite
        }
    }

    /// The kind of a constant; `nil` for `NULL`, which compares with every kind.
    init?(_ value: Value) {
        switch value {
        case .null: return nil
        case .bool, .int, .double, .decimal: self = .number
        case .string: self = .string
        case .date: self = .date
        case .binary: self = .binary
        case .uuid: self = .uuid
        case .url: self = .url
        case .composite: self = .composite
        }
    }
}
