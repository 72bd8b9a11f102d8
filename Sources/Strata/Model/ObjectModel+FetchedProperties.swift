import StrataLog

extension ObjectModel {
    /// The fetched property `name` of `entity`: its own, or one it inherits from an
    /// ancestor; nil when there is none.
    public func fetchedProperty(named name: String, of entity: String) -> FetchedPropertyDescription? {
        guard let description = self.entity(named: entity) else { return nil }
        for owner in [description.name] + description.ancestorNames {
            if let found = self.entity(named: owner)?.fetchedProperties.first(where: { $0.name == name }) { return found }
        }
        return nil
    }

    /// The template with this name, or nil.
    public func fetchRequestTemplate(named name: String) -> FetchRequestTemplate? {
        fetchRequestTemplates.first { $0.name == name }
    }

    /// A fetch request from the named template, its `$variables` bound, as Core Data's
    /// `fetchRequestFromTemplate(withName:substitutionVariables:)`.
    ///
    /// ```swift
    /// let request = try model.fetchRequest(fromTemplate: "EarningAtLeast", substitutionVariables: ["MINIMUM": 100_000])
    /// ```
    ///
    /// - Throws: `StrataError` `.invalidArgument` naming the template when the model has
    ///   none of that name, or the first variable without a binding (context
    ///   `template`, `variable`).
    public func fetchRequest(fromTemplate name: String, substitutionVariables: [String: any PredicateArgument] = [:]) throws -> FetchRequest {
        guard let template = fetchRequestTemplate(named: name) else {
            let known = fetchRequestTemplates.map(\.name).joined(separator: ", ")
            throw StrataError(.invalidArgument, "the model has no fetch request template '\(name)' (it has: \(known.isEmpty ? "none" : known))",
                              context: ["template": name])
        }
        var request = FetchRequest(entityName: template.entityName, sortKeys: template.sortKeys)
        do {
            request.predicate = try template.predicate?.withSubstitutionVariables(substitutionVariables)
        } catch var error as StrataError {
            error.message = "fetch request template '\(name)': \(error.message)"
            error.context["template"] = name
            throw error
        }
        return request
    }

    /// Checks every fetched property: a free name, an existing destination, a
    /// predicate and sort keys that fit the destination, and only `$FETCH_SOURCE`
    /// variables, whose key paths fit the entity that declares the property.
    func validateFetchedProperties() throws {
        for entity in entities {
            var seen = Set<String>()
            for fetched in entity.fetchedProperties {
                func fail(_ problem: String) -> StrataError { ModelValidationError.property(entity.name, fetched.name, problem) }
                if let problem = ModelName.problem(with: fetched.name, kind: "fetched property") { throw fail(problem) }
                guard seen.insert(fetched.name).inserted else { throw fail("the entity declares this fetched property name twice") }
                if entity.property(named: fetched.name) != nil {
                    throw fail("a fetched property cannot share the name of a property of '\(entity.name)'")
                }
                for ancestor in entity.ancestorNames where self.entity(named: ancestor)?.fetchedProperties.contains(where: { $0.name == fetched.name }) == true {
                    throw fail("clashes with the fetched property of the same name inherited from '\(ancestor)'")
                }
                for sub in entity.allSubentityNames where self.entity(named: sub)?.property(named: fetched.name) != nil {
                    throw fail("clashes with the property of the same name of the sub-entity '\(sub)'")
                }
                guard let destination = self.entity(named: fetched.destinationEntityName) else {
                    throw fail("the destination entity '\(fetched.destinationEntityName)' is not in the model")
                }
                do {
                    try fetched.predicate.validate(against: destination, in: self)
                    for key in fetched.sortKeys { try validateSortKey(key, of: destination) }
                } catch let error as StrataError {
                    throw fail("the predicate or sort keys do not fit '\(destination.name)': \(error.message)")
                }
                for variable in fetched.predicate.variableNames {
                    let source = FetchedPropertyDescription.sourceVariable
                    guard variable == source || variable.hasPrefix(source + ".") else {
                        throw fail("the predicate uses $\(variable); a fetched property's predicate can use only $\(source) and $\(source).<key path>")
                    }
                    guard variable != source else { continue }
                    let path = String(variable.dropFirst(source.count + 1))
                    do {
                        _ = try PredicateModelKeyPath.resolve(path, from: entity, in: self)
                    } catch let error as StrataError {
                        throw fail("$\(variable) does not fit '\(entity.name)': \(error.message)")
                    }
                }
            }
        }
    }

    /// Checks every template: a valid, unique name; an existing entity; a predicate
    /// (its variables aside) and sort keys that fit it.
    func validateFetchRequestTemplates() throws {
        var seen = Set<String>()
        for template in fetchRequestTemplates {
            func fail(_ problem: String) -> StrataError {
                StrataError(.invalidModel, "Fetch request template '\(ModelName.shown(template.name))': \(problem)",
                            context: ["template": ModelName.shown(template.name), "entity": ModelName.shown(template.entityName)])
            }
            if let problem = ModelName.problem(with: template.name, kind: "template") { throw fail(problem) }
            guard seen.insert(template.name).inserted else { throw fail("the model declares this template name twice") }
            guard let entity = entity(named: template.entityName) else {
                throw fail("the entity '\(template.entityName)' is not in the model")
            }
            do {
                try template.predicate?.validate(against: entity, in: self)
                for key in template.sortKeys { try validateSortKey(key, of: entity) }
            } catch let error as StrataError {
                throw fail("the predicate or sort keys do not fit '\(entity.name)': \(error.message)")
            }
        }
    }

    private func validateSortKey(_ key: SortKey, of entity: EntityDescription) throws {
        let path = try PredicateModelKeyPath.resolve(key.keyPath, from: entity, in: self)
        guard !path.isMany, case .attribute = path.terminal else {
            throw StrataError(.typeMismatch, "cannot sort by '\(key.keyPath)': it is not an attribute reached through to-one relationships",
                              context: ["keyPath": key.keyPath])
        }
    }
}
