/// What an expression evaluates to against one subject: one operand, or many when a
/// key path passes through a to-many relationship or the expression is a list.
enum PredicateOperand {
    /// An attribute value or constant.
    case value(Value)
    /// A related object, which compares only with `nil` (it has no literal to compare with).
    case object

    /// The value, or `nil` for an object.
    var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }

    var isNull: Bool { value?.isNull ?? false }
}
