import Strata

/// What `export` writes and in which order, chosen so that importing the export
/// rebuilds the same graph with as few forward references as possible.
///
/// - Each relationship pair is written from one side only: a to-one whose inverse is
///   a derived to-many (the department of each employee, not the department's list of
///   100,000 employees), an ordered to-many (its order matters), and for one-to-one
///   and many-to-many pairs the side whose (entity, name) sorts first. Import sets
///   the inverse from that side.
/// - Entities come in dependency order: the destinations of an entity's written
///   relationships before it (cycles are broken in model order).
struct ExportPlan {
    let model: ObjectModel
    /// Concrete entities to export, in order.
    let entities: [EntityDescription]

    /// A plan for every concrete entity, or for `entityName` and its sub-entities.
    init(model: ObjectModel, entityName: String?) throws {
        self.model = model
        var chosen = model.entities.filter { !$0.isAbstract }
        if let entityName {
            guard let entity = model.entity(named: entityName) else {
                throw CommandFailure.usage("unknown entity '\(entityName)' (the store's model has \(model.entities.map(\.name).joined(separator: ", ")))")
            }
            let kinds = Set([entity.name] + entity.allSubentityNames)
            chosen = chosen.filter { kinds.contains($0.name) }
        }
        entities = Self.dependencyOrder(chosen, model: model)
    }

    /// The relationships of `entity` that its lines carry.
    func writtenRelationships(of entity: EntityDescription) -> [RelationshipDescription] {
        entity.relationships.filter { Self.isWritten($0, model: model) }
    }

    static func isWritten(_ relationship: RelationshipDescription, model: ObjectModel) -> Bool {
        guard let inverseName = relationship.inverseName,
              let inverse = model.entity(named: relationship.destinationEntityName)?.relationshipsByName[inverseName] else {
            return true
        }
        // The entity that declares this relationship is the inverse's destination.
        let firstSide = (inverse.destinationEntityName, relationship.name) <= (relationship.destinationEntityName, inverse.name)
        switch (relationship.isToMany, inverse.isToMany) {
        case (false, true): return !inverse.isOrdered
        case (true, false): return relationship.isOrdered
        case (false, false): return firstSide
        case (true, true):
            if relationship.isOrdered != inverse.isOrdered { return relationship.isOrdered }
            return firstSide
        }
    }

    private static func dependencyOrder(_ entities: [EntityDescription], model: ObjectModel) -> [EntityDescription] {
        let names = Set(entities.map(\.name))
        var dependencies: [String: Set<String>] = [:]
        for entity in entities {
            var needs = Set<String>()
            for relationship in entity.relationships where isWritten(relationship, model: model) {
                guard let destination = model.entity(named: relationship.destinationEntityName) else { continue }
                for kind in [destination.name] + destination.allSubentityNames where kind != entity.name && names.contains(kind) {
                    needs.insert(kind)
                }
            }
            dependencies[entity.name] = needs
        }
        var ordered: [EntityDescription] = []
        var done = Set<String>()
        var remaining = entities
        while !remaining.isEmpty {
            let next = remaining.firstIndex { dependencies[$0.name, default: []].isSubset(of: done) } ?? 0
            let entity = remaining.remove(at: next)
            ordered.append(entity)
            done.insert(entity.name)
        }
        return ordered
    }
}
