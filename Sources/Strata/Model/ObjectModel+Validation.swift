import Foundation

extension ObjectModel {
    /// Checks every declared property of the resolved entities: attribute defaults,
    /// options and rules, relationship destinations and inverses. Each property is
    /// checked on the entity that declares it; sub-entities inherit it unchanged.
    ///
    /// - Throws: `invalidModel` naming the first entity and property at fault, in
    ///   entity-name order, then declaration order, so the same model always reports
    ///   the same error.
    static func validateProperties(_ entities: [EntityDescription]) throws {
        let byName = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0) })
        for entity in entities {
            var renamings: [String: String] = [:]
            for property in entity.declaredProperties {
                if let renamed = property.renamingIdentifier {
                    if let problem = ModelName.problem(with: renamed, kind: "renaming identifier") {
                        throw ModelValidationError.property(entity.name, property.name, problem)
                    }
                    if let other = renamings.updateValue(property.name, forKey: renamed) {
                        throw ModelValidationError.property(
                            entity.name, property.name,
                            "has the same renaming identifier '\(renamed)' as '\(other)'")
                    }
                }
                switch property {
                case .attribute(let attribute):
                    try validate(attribute, in: entity.name)
                case .relationship(let relationship):
                    try validate(relationship, in: entity, entities: byName)
                }
            }
        }
    }

    private static func validate(_ attribute: AttributeDescription, in entity: String) throws {
        func fail(_ problem: String) -> StrataError {
            ModelValidationError.property(entity, attribute.name, problem)
        }
        let type = attribute.type
        if let value = attribute.defaultValue {
            if value.isNull {
                throw fail("the default value is .null; use nil for no default")
            }
            guard value.conforms(to: type) else {
                throw fail("the default value is a \(value.caseName), which does not fit type \(type.rawValue)")
            }
            if case .composite(let json) = value, !isJSON(json) {
                throw fail("the default value of a composite attribute is not valid JSON")
            }
        }
        if attribute.allowsExternalStorage && type != .binary && type != .transformable {
            throw fail("external storage is only for binary and transformable attributes, not \(type.rawValue)")
        }
        if let name = attribute.valueTransformerName {
            guard type == .transformable else {
                throw fail("a value transformer ('\(name)') applies to transformable attributes only, not \(type.rawValue)")
            }
            guard !name.isEmpty, !name.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw fail("the value transformer name '\(name)' is empty or holds white space")
            }
        } else if type == .transformable {
            throw fail("a transformable attribute needs a value transformer name (JSON for the built-in one)")
        }
        if attribute.isTransient {
            if attribute.allowsExternalStorage { throw fail("a transient attribute cannot use external storage") }
            if attribute.isIndexed { throw fail("a transient attribute cannot be indexed") }
            if attribute.isUnique { throw fail("a transient attribute cannot be unique") }
        }
        try validateRange(attribute, fail: fail)
        try validateLength(attribute, fail: fail)
        if let pattern = attribute.pattern {
            guard type == .string else {
                throw fail("a pattern applies to string attributes only, not \(type.rawValue)")
            }
            do {
                _ = try NSRegularExpression(pattern: pattern)
            } catch {
                throw fail("the pattern '\(pattern)' is not a valid regular expression")
            }
        }
    }

    private static func validateRange(
        _ attribute: AttributeDescription, fail: (String) -> StrataError
    ) throws {
        let type = attribute.type
        for (label, bound) in [("minimum", attribute.minimumValue), ("maximum", attribute.maximumValue)] {
            guard let bound else { continue }
            guard type.isComparable else {
                throw fail("a \(label) value applies to numeric and date attributes only, not \(type.rawValue)")
            }
            guard !bound.isNull, bound.conforms(to: type) else {
                throw fail("the \(label) value is a \(bound.caseName), which does not fit type \(type.rawValue)")
            }
        }
        if let minimum = attribute.minimumValue, let maximum = attribute.maximumValue {
            guard let order = minimum.rangeOrder(comparedTo: maximum) else {
                throw fail("the minimum and maximum values cannot be compared")
            }
            if order == .orderedDescending {
                throw fail("the minimum value is greater than the maximum value")
            }
        }
    }

    private static func validateLength(
        _ attribute: AttributeDescription, fail: (String) -> StrataError
    ) throws {
        let type = attribute.type
        for (label, bound) in [("minimum", attribute.minimumLength), ("maximum", attribute.maximumLength)] {
            guard let bound else { continue }
            guard type.hasLength else {
                throw fail("a \(label) length applies to string and binary attributes only, not \(type.rawValue)")
            }
            guard bound >= 0 else { throw fail("the \(label) length \(bound) is negative") }
        }
        if let minimum = attribute.minimumLength, let maximum = attribute.maximumLength, minimum > maximum {
            throw fail("the minimum length \(minimum) is greater than the maximum length \(maximum)")
        }
    }

    private static func validate(
        _ relationship: RelationshipDescription,
        in entity: EntityDescription,
        entities: [String: EntityDescription]
    ) throws {
        func fail(_ problem: String) -> StrataError {
            ModelValidationError.property(entity.name, relationship.name, problem)
        }
        let destinationName = relationship.destinationEntityName
        guard let destination = entities[destinationName] else {
            throw fail("the destination entity '\(destinationName)' is not in the model")
        }
        if relationship.isOrdered && !relationship.isToMany {
            throw fail("only a to-many relationship can be ordered")
        }
        try validateCounts(relationship, fail: fail)
        guard let inverseName = relationship.inverseName else {
            guard relationship.waivesInverse else {
                throw fail("""
                    has no inverse; name the inverse relationship on '\(destinationName)', \
                    or waive it explicitly if the graph is meant to be one-way
                    """)
            }
            return
        }
        if relationship.waivesInverse {
            throw fail("names the inverse '\(inverseName)' and also waives having one")
        }
        guard let inverse = destination.relationshipsByName[inverseName] else {
            if destination.attributesByName[inverseName] != nil {
                throw fail("the inverse '\(destinationName).\(inverseName)' is an attribute, not a relationship")
            }
            throw fail("the inverse '\(inverseName)' is not a relationship of '\(destinationName)'")
        }
        guard inverse.destinationEntityName == entity.name else {
            throw fail("""
                the inverse '\(destinationName).\(inverseName)' points to \
                '\(inverse.destinationEntityName)', not back to '\(entity.name)'
                """)
        }
        guard inverse.inverseName == relationship.name else {
            let named = inverse.inverseName.map { "'\($0)'" } ?? "no inverse"
            throw fail("""
                the inverse '\(destinationName).\(inverseName)' names \(named) as its \
                inverse, not '\(relationship.name)'
                """)
        }
    }

    private static func validateCounts(
        _ relationship: RelationshipDescription, fail: (String) -> StrataError
    ) throws {
        for (label, bound) in [("minimum", relationship.minimumCount), ("maximum", relationship.maximumCount)] {
            guard let bound else { continue }
            guard relationship.isToMany else {
                throw fail("a \(label) count applies to to-many relationships only; use isOptional for a to-one")
            }
            guard bound >= 0 else { throw fail("the \(label) count \(bound) is negative") }
        }
        // Core Data spells "no limit" as a maximum of 0; here it would forbid any object.
        if relationship.maximumCount == 0 {
            throw fail("a maximum count of 0 allows no object; leave it unset for no limit")
        }
        if let minimum = relationship.minimumCount, let maximum = relationship.maximumCount, minimum > maximum {
            throw fail("the minimum count \(minimum) is greater than the maximum count \(maximum)")
        }
    }

    private static func isJSON(_ data: Data) -> Bool {
        (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
    }
}
