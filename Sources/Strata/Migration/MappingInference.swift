/// Infers the mapping between two models: matches entities and properties by name and
/// renaming identifier, then checks every change against the rules of lightweight
/// migration, collecting every problem rather than stopping at the first.
struct MappingInference {
    let source: ObjectModel
    let destination: ObjectModel
    /// Destination entity → the source entity whose objects it receives.
    private(set) var entitySources: [String: String] = [:]
    /// Source entity → the destination entity its objects become.
    private(set) var entityImages: [String: String] = [:]
    /// Per matched destination entity: destination property → source property.
    private(set) var propertySources: [String: [String: String]] = [:]
    private(set) var problems: [MappingProblem] = []

    init(source: ObjectModel, destination: ObjectModel) {
        self.source = source
        self.destination = destination
        matchEntities()
        matchProperties()
    }

    /// The inferred entity mappings: one per destination entity in the destination
    /// model's order, then one `.remove` per source entity nothing receives.
    mutating func entityMappings() -> [EntityMapping] {
        var mappings: [EntityMapping] = []
        for entity in destination.entities {
            if let sourceName = entitySources[entity.name], let sourceEntity = source.entity(named: sourceName) {
                mappings.append(mapping(from: sourceEntity, to: entity))
            } else {
                mappings.append(EntityMapping(
                    name: "Add\(entity.name)", kind: .add,
                    sourceEntityName: nil, destinationEntityName: entity.name,
                    attributeMappings: entity.storedAttributes.map(Self.addedAttributeMapping),
                    relationshipMappings: entity.relationships.map { PropertyMapping(name: $0.name, value: .defaultValue) }))
            }
        }
        for entity in source.entities where entityImages[entity.name] == nil {
            mappings.append(EntityMapping(
                name: "Remove\(entity.name)", kind: .remove,
                sourceEntityName: entity.name, destinationEntityName: nil))
        }
        return mappings
    }

    /// The problems found, each once, in the order found.
    var uniqueProblems: [MappingProblem] {
        var seen = Set<MappingProblem>()
        return problems.filter { seen.insert($0).inserted }
    }

    mutating func report(_ entity: String, _ property: String?, _ reason: String) {
        problems.append(MappingProblem(entity: entity, property: property, reason: reason))
    }

    // MARK: Matching

    private mutating func matchEntities() {
        let matching = NameMatching(
            destinations: destination.entities.map { ($0.name, $0.renamingIdentifier) },
            sourceNames: Set(source.entities.map(\.name)))
        entitySources = matching.sources
        for (destinationName, sourceName) in matching.sources { entityImages[sourceName] = destinationName }
        for conflict in matching.conflicts {
            report(conflict.destination, nil,
                   "renaming identifier '\(conflict.source)' names the entity '\(conflict.other)' also receives")
        }
    }

    private mutating func matchProperties() {
        for entity in destination.entities {
            guard let sourceName = entitySources[entity.name],
                  let sourceEntity = source.entity(named: sourceName) else { continue }
            // Transient attributes are never stored: nothing to read on one side, nothing
            // to write on the other.
            let destinationProperties = entity.properties.filter { !($0.attribute?.isTransient ?? false) }
            let sourceNames = sourceEntity.properties.filter { !($0.attribute?.isTransient ?? false) }.map(\.name)
            let matching = NameMatching(
                destinations: destinationProperties.map { ($0.name, $0.renamingIdentifier) },
                sourceNames: Set(sourceNames))
            propertySources[entity.name] = matching.sources
            for conflict in matching.conflicts {
                report(declaringEntity(of: conflict.destination, in: entity), conflict.destination,
                       "renaming identifier '\(conflict.source)' names the property '\(conflict.other)' also receives")
            }
        }
    }

    /// The entity that declares a property: problems with an inherited property name
    /// the ancestor, so that each sub-entity does not repeat them.
    func declaringEntity(of property: String, in entity: EntityDescription) -> String {
        for name in [entity.name] + entity.ancestorNames {
            if destination.entity(named: name)?.declaredProperties.contains(where: { $0.name == property }) ?? false {
                return name
            }
        }
        return entity.name
    }

    /// The mapping of a new attribute: its default, recorded as what nil becomes so
    /// that composing stages keeps it.
    static func addedAttributeMapping(_ attribute: AttributeDescription) -> PropertyMapping {
        PropertyMapping(
            name: attribute.name, value: .defaultValue,
            transforms: attribute.defaultValue.map { [.replaceNil(with: $0)] } ?? [])
    }
}
