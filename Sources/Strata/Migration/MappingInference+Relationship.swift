extension MappingInference {
    /// The mapping of one destination relationship, reporting what cannot be inferred.
    mutating func relationshipMapping(
        _ relationship: RelationshipDescription, in entity: EntityDescription,
        from sourceEntity: EntityDescription, matches: [String: String]
    ) -> PropertyMapping? {
        let owner = declaringEntity(of: relationship.name, in: entity)
        let required = !relationship.isOptional || (relationship.minimumCount ?? 0) > 0
        guard let sourceName = matches[relationship.name] else {
            if required {
                report(owner, relationship.name,
                       "new non-optional relationship; existing objects have nothing to relate to")
            }
            checkInverseOfAdded(relationship, in: entity, owner: owner)
            return PropertyMapping(name: relationship.name, value: .defaultValue)
        }
        guard let sourceRelationship = sourceEntity.relationshipsByName[sourceName] else {
            report(owner, relationship.name,
                   "was the attribute '\(sourceEntity.name).\(sourceName)', is now a relationship")
            return nil
        }
        checkDestination(of: relationship, owner: owner, from: sourceRelationship)
        if sourceRelationship.isToMany && !relationship.isToMany {
            report(owner, relationship.name, "to-many → to-one would drop related objects")
        }
        let wasRequired = !sourceRelationship.isOptional || (sourceRelationship.minimumCount ?? 0) > 0
        if required && !wasRequired {
            report(owner, relationship.name,
                   "optional → non-optional relationship; objects without a destination have nothing to relate to")
        }
        return PropertyMapping(name: relationship.name, value: .keyPath(sourceName))
    }

    /// The source relationship's destination objects must become objects the
    /// destination relationship accepts: its destination entity or a sub-entity.
    private mutating func checkDestination(
        of relationship: RelationshipDescription, owner: String, from sourceRelationship: RelationshipDescription
    ) {
        let sourceTargets = [sourceRelationship.destinationEntityName]
            + (source.entity(named: sourceRelationship.destinationEntityName)?.allSubentityNames ?? [])
        for target in sourceTargets {
            // A removed sub-entity's objects are gone, so links to them simply drop.
            let image = entityImages[target]
            if image == nil && target != sourceRelationship.destinationEntityName { continue }
            guard let image, destination.entity(named: image)?.isKind(of: relationship.destinationEntityName) ?? false else {
                let became = image.map { "becomes '\($0)'" } ?? "is removed"
                report(owner, relationship.name,
                       "destination '\(sourceRelationship.destinationEntityName)' changed to "
                       + "'\(relationship.destinationEntityName)', but '\(target)' \(became)")
                return
            }
        }
    }

    /// A new relationship whose inverse is kept from the source would hold nothing
    /// while its inverse holds objects: the old relationship was most likely renamed
    /// without a renaming identifier.
    private mutating func checkInverseOfAdded(
        _ relationship: RelationshipDescription, in entity: EntityDescription, owner: String
    ) {
        guard let inverseName = relationship.inverseName,
              let inverseSource = propertySources[relationship.destinationEntityName]?[inverseName],
              let sourceTargetName = entitySources[relationship.destinationEntityName],
              let sourceInverse = source.entity(named: sourceTargetName)?.relationshipsByName[inverseSource],
              let previous = sourceInverse.inverseName
        else { return }
        report(owner, relationship.name,
               "new relationship, but its inverse '\(relationship.destinationEntityName).\(inverseName)' keeps "
               + "the objects of '\(sourceTargetName).\(inverseSource)', whose inverse was '\(previous)': "
               + "set renamingIdentifier \"\(previous)\" if it was renamed")
    }
}
