import StrataLog

extension ManagedObject {
    /// The objects of a fetched property, fetched now (Core Data's fetched properties):
    /// the destination entity's objects that match the property's predicate with
    /// `$FETCH_SOURCE` bound to this object, in its sort order, as this context sees
    /// them (its unsaved changes included).
    ///
    /// ```swift
    /// let wellPaid = try department.fetchedObjects("wellPaid")
    /// ```
    ///
    /// The property is evaluated on every read and never cached: unlike Core Data,
    /// which keeps the first result until the object is refreshed, the answer is never
    /// stale. A fetched property stores nothing and cannot be set.
    ///
    /// - Throws: `.unknownKeyPath` naming the entity and name when the entity (or an
    ///   ancestor) has no such fetched property; what the fetch throws.
    public func fetchedObjects(_ name: String) throws -> [ManagedObject] {
        let context = try requireContext()
        let model = context.store.model
        guard let fetched = model.fetchedProperty(named: name, of: entity.name) else {
            throw StrataError(.unknownKeyPath, "\(entity.name) has no fetched property '\(name)'",
                              context: ["entity": entity.name, "keyPath": name])
        }
        var bindings: [String: any PredicateArgument] = [:]
        let source = FetchedPropertyDescription.sourceVariable
        for variable in fetched.predicate.variableNames {
            if variable == source {
                bindings[variable] = PredicateExpression.object(objectID)
            } else if variable.hasPrefix(source + ".") {
                let path = String(variable.dropFirst(source.count + 1))
                bindings[variable] = try Self.binding(of: path, on: self)
            }
        }
        let request = FetchRequest(
            entityName: fetched.destinationEntityName,
            predicate: try fetched.predicate.withSubstitutionVariables(bindings),
            sortKeys: fetched.sortKeys)
        return try context.fetch(request)
    }

    /// What `$FETCH_SOURCE.<path>` stands for: a value, an object, or a list of either
    /// when the path goes through a to-many relationship.
    private static func binding(of path: String, on object: ManagedObject) throws -> PredicateExpression {
        func expression(_ operand: PredicateOperand) -> PredicateExpression {
            switch operand {
            case .value(let value): .constant(value)
            case .object(let id?): .object(id)
            case .object(nil): .constant(.null)
            }
        }
        switch try PredicateKeyPathWalk.resolve(PredicateExpression.components(of: path), of: object, path: path) {
        case .single(let operand): return expression(operand)
        case .many(let operands): return .list(operands.map(expression))
        }
    }
}
