/// One object breaking one uniqueness rule at save.
struct UniquenessFailure {
    var constraint: UniqueConstraint
    var values: [Value]
    var object: ObjectID
    var other: ObjectID

    var validationFailure: ValidationFailure {
        ValidationFailure(object: object, property: constraint.attributes.joined(separator: ","), rule: "unique",
                          message: "\(constraint.label) must be unique; \(other) has the same value \(UniqueConstraint.display(values))")
    }
}
