/// The result of resolving an expression: a single operand, or a collection.
enum PredicateResolvedExpression {
    case single(PredicateOperand)
    case many([PredicateOperand])

    /// Every operand, a single one as a collection of one.
    var operands: [PredicateOperand] {
        switch self {
        case .single(let operand): [operand]
        case .many(let operands): operands
        }
    }
}
