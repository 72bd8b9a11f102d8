extension Predicate {
    /// Checks the predicate against an entity before it runs, so that a misspelt key
    /// is an error that names it rather than an empty result.
    ///
    /// Every key path is resolved through the model; to-many key paths must be
    /// quantified (`ANY`, `ALL`, `NONE`) or counted (`@count`); the two sides of each
    /// comparison must be of kinds that compare (a string attribute with a string, a
    /// number with a number, a relationship with `nil` only); string operators need
    /// strings. `$variables` are not checked: substitute them first to check their values.
    ///
    /// ```swift
    /// try Predicate(format: "agee == 25").validate(againstEntityNamed: "Employee", in: model)
    /// // StrataError.Code.unknownKeyPath: "Employee has no property 'agee' (in key path 'agee')"
    /// ```
    ///
    /// - Parameters:
    ///   - entity: the entity of the objects the predicate will be evaluated with.
    ///   - model: the model holding `entity` and the destinations of its relationships.
    /// - Throws: `StrataError` `.unknownKeyPath` for a key path that does not resolve,
    ///   `.typeMismatch` for a comparison that cannot hold (an unquantified to-many key
    ///   path, a string compared with a number…), `.invalidArgument` for a `MATCHES`
    ///   pattern that is not a regular expression, `.limitExceeded` for a predicate
    ///   built deeper than ``maximumNestingDepth``. Context keys `entity` and `keyPath`
    ///   name where.
    public func validate(against entity: EntityDescription, in model: ObjectModel) throws {
        try checkNestingDepth()
        try forEachComparison { comparison in
            try PredicateValidator(entity: entity, model: model, comparison: comparison).validate()
        }
    }

    /// Checks the predicate against the entity named `entityName` in `model`.
    ///
    /// - Throws: `StrataError` `.unknownKeyPath` when the model has no such entity,
    ///   otherwise as ``validate(against:in:)``.
    public func validate(againstEntityNamed entityName: String, in model: ObjectModel) throws {
        guard let entity = model.entity(named: entityName) else {
            throw StrataError(.unknownKeyPath, "The model has no entity '\(entityName)'", context: ["entity": entityName])
        }
        try validate(against: entity, in: model)
    }
}
