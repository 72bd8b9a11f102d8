extension MappingInference {
    /// The mapping of a destination entity that receives a source entity's objects,
    /// reporting what cannot be inferred.
    mutating func mapping(from sourceEntity: EntityDescription, to entity: EntityDescription) -> EntityMapping {
        if entity.isAbstract && !sourceEntity.isAbstract {
            report(entity.name, nil,
                   "became abstract; the objects of '\(sourceEntity.name)' would have no entity to become")
        }
        let matches = propertySources[entity.name] ?? [:]
        var attributes: [PropertyMapping] = []
        for attribute in entity.storedAttributes {
            if let mapping = attributeMapping(attribute, in: entity, from: sourceEntity, matches: matches) {
                attributes.append(mapping)
            }
        }
        var relationships: [PropertyMapping] = []
        for relationship in entity.relationships {
            if let mapping = relationshipMapping(relationship, in: entity, from: sourceEntity, matches: matches) {
                relationships.append(mapping)
            }
        }
        let unchanged = sourceEntity.name == entity.name
            && source.entityVersionHashes[sourceEntity.name] == destination.entityVersionHashes[entity.name]
            && (attributes + relationships).allSatisfy(\.isIdentity)
        let name = "\(sourceEntity.name)To\(entity.name)"
        return EntityMapping(
            name: name, kind: unchanged ? .copy : .transform,
            sourceEntityName: sourceEntity.name, destinationEntityName: entity.name,
            attributeMappings: attributes, relationshipMappings: relationships)
    }

    private mutating func attributeMapping(
        _ attribute: AttributeDescription, in entity: EntityDescription,
        from sourceEntity: EntityDescription, matches: [String: String]
    ) -> PropertyMapping? {
        let owner = declaringEntity(of: attribute.name, in: entity)
        guard let sourceName = matches[attribute.name] else {
            if !attribute.isOptional && attribute.defaultValue == nil {
                report(owner, attribute.name, "new non-optional attribute without a default value")
            }
            return Self.addedAttributeMapping(attribute)
        }
        guard let sourceAttribute = sourceEntity.attributesByName[sourceName] else {
            report(owner, attribute.name,
                   "was the relationship '\(sourceEntity.name).\(sourceName)', is now an attribute")
            return nil
        }
        var transforms: [MappingTransform] = []
        if let problem = typeChangeProblem(from: sourceAttribute, to: attribute) {
            report(owner, attribute.name, problem)
        } else if sourceAttribute.type != attribute.type {
            transforms.append(.convert(from: sourceAttribute.type, to: attribute.type))
        }
        // Objects that had no value get the default, so the mapping says it explicitly.
        // Without a default the change is inferred all the same, as Core Data's
        // lightweight migration does: the validation pass fails the migration
        // (migrationValidationFailed naming the entity, the attribute and the object)
        // only when an object really holds nil, and a store whose objects all hold a
        // value migrates.
        if sourceAttribute.isOptional && !attribute.isOptional, let value = attribute.defaultValue {
            transforms.append(.replaceNil(with: value))
        }
        return PropertyMapping(name: attribute.name, value: .keyPath(sourceName), transforms: transforms)
    }
}
