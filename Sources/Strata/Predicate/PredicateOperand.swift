/// What an expression evaluates to against one subject: one operand, or many when a
/// key path passes through a to-many relationship or the expression is a list.
enum PredicateOperand {
    /// An attribute value or constant.
    case value(Value)
    /// A related object, by identity when the subject has one: it compares equal to the
    /// same object (an ``PredicateExpression/object(_:)``), and unequal to `nil`.
    case object(ObjectID?)

    /// The value, or `nil` for an object.
    var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }

    var isNull: Bool { value?.isNull ?? false }
}
