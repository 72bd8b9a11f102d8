extension AttributeType {
    /// The type's name as Core Data's model editor shows it ("Int16", "String"), for
    /// migration messages such as "type change String → Int64 is not lossless".
    var migrationDisplayName: String {
        switch self {
        case .bool: "Bool"
        case .int16: "Int16"
        case .int32: "Int32"
        case .int64: "Int64"
        case .float: "Float"
        case .double: "Double"
        case .decimal: "Decimal"
        case .string: "String"
        case .date: "Date"
        case .binary: "Binary"
        case .uuid: "UUID"
        case .url: "URI"
        case .composite: "Composite"
        case .transformable: "Transformable"
        }
    }
}
