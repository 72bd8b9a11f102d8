/// Turns model types into entity descriptions: the attribute and relationship of each
/// property, the inverses paired across models, `#Unique`/`#Index` applied.
struct SchemaBuilder {
    let types: [any PersistentModel.Type]

    func objectModel(version: String) throws -> ObjectModel {
        var entities: [EntityDescription] = []
        for type in types { entities.append(try entity(for: type)) }
        try pairInverses(&entities)
        return try ObjectModel(version: version, entities: entities)
    }

    func entity(for type: any PersistentModel.Type) throws -> EntityDescription {
        let name = type.entityName
        var properties: [PropertyDescription] = []
        for property in type.schemaMetadata {
            func problem(_ text: String) -> StrataError {
                StrataError(.invalidModel, "\(name).\(property.name): \(text)", context: ["entity": name, "property": property.name])
            }
            if let defaultProblem = property.defaultProblem { throw problem(defaultProblem) }
            let options = Set(property.attribute?.options ?? [])
            switch property.kind {
            case .attribute(let attributeType, let optional):
                if options.contains(.externalStorage) && attributeType != .binary {
                    throw problem("@Attribute(.externalStorage) applies to Data properties only")
                }
                properties.append(.attribute(AttributeDescription(
                    name: property.name, type: attributeType, isOptional: optional,
                    defaultValue: property.defaultValue,
                    allowsExternalStorage: options.contains(.externalStorage),
                    isUnique: options.contains(.unique),
                    renamingIdentifier: property.attribute?.originalName,
                    preserveValueOnDeletion: options.contains(.preserveValueOnDeletion))))
            case .composite(let optional):
                if options.contains(.externalStorage) { throw problem("@Attribute(.externalStorage) applies to Data properties only") }
                properties.append(.attribute(AttributeDescription(
                    name: property.name, type: .composite, isOptional: optional,
                    defaultValue: property.defaultValue, isUnique: options.contains(.unique),
                    renamingIdentifier: property.attribute?.originalName,
                    preserveValueOnDeletion: options.contains(.preserveValueOnDeletion))))
            case .toOne(let destination, let optional):
                let options = property.relationship ?? Schema.Relationship()
                properties.append(.relationship(RelationshipDescription(
                    name: property.name, destinationEntityName: destination.entityName,
                    inverseName: options.inverseName, isToMany: false, isOptional: optional,
                    deleteRule: options.deleteRule, renamingIdentifier: options.originalName)))
            case .toMany(let destination):
                let options = property.relationship ?? Schema.Relationship()
                let minimum = options.minimumModelCount.flatMap { $0 > 0 ? $0 : nil }
                let maximum = options.maximumModelCount.flatMap { $0 > 0 ? $0 : nil }
                properties.append(.relationship(RelationshipDescription(
                    name: property.name, destinationEntityName: destination.entityName,
                    inverseName: options.inverseName, isToMany: true, isOptional: true,
                    deleteRule: options.deleteRule, minimumCount: minimum, maximumCount: maximum,
                    renamingIdentifier: options.originalName)))
            case .unsupported(let swiftType):
                throw problem("Strata cannot store \(swiftType): use a scalar (String, Bool, integers, Float, Double, Decimal, Date, Data, UUID, URL), a Codable type, a model, an array of models, or mark it @Transient")
            }
        }
        let compound = try applyConstraints(type.schemaConstraints, entity: name, to: &properties)
        return EntityDescription(name: name, properties: properties, uniquenessConstraints: compound)
    }

    /// `#Unique` of one key path sets the attribute's unique flag; of several, a compound
    /// uniqueness constraint of the entity. `#Index` sets the indexed flag of each
    /// attribute it names.
    func applyConstraints(_ constraints: Schema.Constraints, entity: String, to properties: inout [PropertyDescription]) throws -> [[String]] {
        func update(_ name: String, _ what: String, _ change: (inout AttributeDescription) -> Void) throws {
            guard let position = properties.firstIndex(where: { $0.name == name }),
                  case .attribute(var attribute) = properties[position] else {
                throw StrataError(.invalidModel, "\(what) on \(entity).\(name): not a persisted attribute of \(entity)", context: ["entity": entity, "property": name])
            }
            change(&attribute)
            properties[position] = .attribute(attribute)
        }
        var compound: [[String]] = []
        for group in constraints.unique {
            if group.count == 1 {
                try update(group[0], "#Unique") { $0.isUnique = true }
            } else {
                for name in group { try update(name, "#Unique") { _ in } }
                compound.append(group)
            }
        }
        for group in constraints.indexes {
            for name in group { try update(name, "#Index") { $0.isIndexed = true } }
        }
        return compound
    }

    /// Names every relationship's inverse on both sides: an explicit
    /// `@Relationship(inverse:)` names its partner; a relationship still without one is
    /// paired with the only relationship that leads back, or waives its inverse.
    func pairInverses(_ entities: inout [EntityDescription]) throws {
        var index: [String: Int] = [:]
        for (position, entity) in entities.enumerated() { index[entity.name] = position }
        func declared(_ entity: String, _ name: String) -> RelationshipDescription? {
            index[entity].flatMap { entities[$0].declaredProperties.first { $0.name == name }?.relationship }
        }
        func set(_ entity: String, _ name: String, inverse: String?, waives: Bool) {
            guard let position = index[entity],
                  let slot = entities[position].declaredProperties.firstIndex(where: { $0.name == name }),
                  case .relationship(var relationship) = entities[position].declaredProperties[slot] else { return }
            relationship.inverseName = inverse
            relationship.waivesInverse = waives
            entities[position].declaredProperties[slot] = .relationship(relationship)
        }
        // Explicit inverses first, both ways.
        for entity in entities {
            for source in entity.relationships {
                guard let inverse = source.inverseName else { continue }
                let destination = source.destinationEntityName
                guard let partner = declared(destination, inverse), partner.destinationEntityName == entity.name else {
                    throw StrataError(.invalidModel, "\(entity.name).\(source.name): its inverse \(destination).\(inverse) is not a relationship to \(entity.name)", context: ["entity": entity.name, "property": source.name])
                }
                if let existing = partner.inverseName, existing != source.name {
                    throw StrataError(.invalidModel, "\(entity.name).\(source.name) and \(entity.name).\(existing) both name \(destination).\(inverse) as their inverse", context: ["entity": entity.name, "property": source.name])
                }
                set(destination, inverse, inverse: source.name, waives: false)
            }
        }
        // Then the ones left: pair with the only relationship that leads back.
        for name in entities.map(\.name) {
            guard let position = index[name] else { continue }
            for source in entities[position].relationships {
                guard let current = declared(name, source.name), current.inverseName == nil, !current.waivesInverse else { continue }
                let destination = current.destinationEntityName
                let candidates = (index[destination].map { entities[$0].relationships } ?? []).filter {
                    $0.destinationEntityName == name && $0.inverseName == nil && !$0.waivesInverse
                        && !(destination == name && $0.name == current.name)
                }
                let siblings = entities[position].relationships.filter {
                    $0.destinationEntityName == destination && $0.inverseName == nil && !$0.waivesInverse
                }
                if candidates.count == 1, siblings.count == 1 {
                    set(name, current.name, inverse: candidates[0].name, waives: false)
                    set(destination, candidates[0].name, inverse: current.name, waives: false)
                } else {
                    set(name, current.name, inverse: nil, waives: true)
                }
            }
        }
    }
}
