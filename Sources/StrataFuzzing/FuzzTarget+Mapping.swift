import Strata

/// Mapping inference and plan validation on a pair of models the input describes: a
/// source model, then a destination made of the source by edits (renames with and
/// without renaming identifiers, type and optionality changes, added and dropped
/// properties and entities, changed relationships and parents).
extension FuzzTarget {
    static func mapping(_ bytes: [UInt8]) throws {
        var input = FuzzInput(bytes)
        var shape = ModelShape.make(&input)
        let source = try ObjectModel(version: "1", entities: shape.descriptions())
        shape.edit(&input)
        let destination = try ObjectModel(version: "2", entities: shape.descriptions())
        let problems = MappingModel.inferenceProblems(from: source, to: destination)
        let inferred = try? MappingModel.inferred(from: source, to: destination)
        guard (inferred == nil) == !problems.isEmpty else {
            throw FuzzFinding("mapping: inferred(from:to:) \(inferred == nil ? "failed" : "succeeded") but inferenceProblems listed \(problems.count)")
        }
        let plan = MigrationPlan(models: [source, destination], stages: [.lightweight(from: source, to: destination)])
        _ = try? plan.validate()
        if let inferred {
            let custom = MigrationPlan(models: [source, destination], stages: [.custom(from: source, to: destination, mapping: inferred)])
            _ = try? custom.validate()
        }
    }
}

/// A model as plain values the fuzzer can edit before it is built.
struct ModelShape {
    struct EntityShape {
        var name: String
        var renamedFrom: String?
        var parent: String?
        var abstract = false
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
    }

    var entities: [EntityShape]

    static let entityNames = ["A", "B", "C", "D", "E"]
    static let propertyNames = ["a", "b", "c", "d", "e", "f"]

    static func make(_ input: inout FuzzInput) -> ModelShape {
        var entities: [EntityShape] = []
        for index in 0..<(1 + input.below(4)) {
            var entity = EntityShape(name: entityNames[index])
            if index > 0, input.byte() % 4 == 0 { entity.parent = entityNames[input.below(index)] }
            entity.abstract = input.byte() % 8 == 0
            for name in propertyNames.prefix(input.below(5)) {
                entity.attributes.append(attribute(name, &input))
            }
            entities.append(entity)
        }
        var shape = ModelShape(entities: entities)
        for _ in 0..<input.below(3) { shape.addRelationshipPair(&input) }
        return shape
    }

    static func attribute(_ name: String, _ input: inout FuzzInput) -> AttributeDescription {
        let types = AttributeType.allCases
        let type = types[input.below(types.count)]
        let flags = input.byte()
        var attribute = AttributeDescription(name: name, type: type, isOptional: flags & 1 == 1,
                                             defaultValue: flags & 2 == 2 ? defaultValue(for: type) : nil,
                                             isIndexed: flags & 4 == 4, isUnique: flags & 8 == 8)
        if flags & 16 == 16 { attribute.isTransient = true }
        return attribute
    }

    static func defaultValue(for type: AttributeType) -> Value? {
        switch type {
        case .bool: .bool(true)
        case .int16, .int32, .int64: .int(7)
        case .float, .double: .double(1.5)
        case .string: .string("x")
        default: nil
        }
    }

    mutating func addRelationshipPair(_ input: inout FuzzInput) {
        guard !entities.isEmpty else { return }
        let from = input.below(entities.count), to = input.below(entities.count)
        let forward = "r\(input.below(4))", backward = "s\(input.below(4))"
        guard !entities[from].relationships.contains(where: { $0.name == forward }),
              !entities[to].relationships.contains(where: { $0.name == backward }) else { return }
        let flags = input.byte()
        entities[from].relationships.append(RelationshipDescription(
            name: forward, destinationEntityName: entities[to].name, inverseName: flags & 1 == 1 ? backward : nil,
            isToMany: flags & 2 == 2, isOrdered: flags & 4 == 4, isOptional: flags & 8 != 8, deleteRule: .nullify))
        if flags & 1 == 1 {
            entities[to].relationships.append(RelationshipDescription(
                name: backward, destinationEntityName: entities[from].name, inverseName: forward,
                isToMany: flags & 16 == 16, isOrdered: false, isOptional: true, deleteRule: .nullify))
        }
    }

    /// Applies up to eight edits chosen by the input.
    mutating func edit(_ input: inout FuzzInput) {
        for _ in 0..<input.below(9) {
            guard !entities.isEmpty else { return }
            let e = input.below(entities.count)
            switch input.below(10) {
            case 0: // rename the entity, keeping a renaming identifier or not
                let old = entities[e].name
                entities[e].name = old + "x"
                if input.bool() { entities[e].renamedFrom = old }
                for i in entities.indices {
                    if entities[i].parent == old { entities[i].parent = entities[e].name }
                    for r in entities[i].relationships.indices where entities[i].relationships[r].destinationEntityName == old {
                        entities[i].relationships[r].destinationEntityName = entities[e].name
                    }
                }
            case 1: // rename an attribute
                guard !entities[e].attributes.isEmpty else { continue }
                let a = input.below(entities[e].attributes.count)
                let old = entities[e].attributes[a].name
                entities[e].attributes[a].name = old + "y"
                if input.bool() { entities[e].attributes[a].renamingIdentifier = old }
            case 2: // change an attribute's type
                guard !entities[e].attributes.isEmpty else { continue }
                let a = input.below(entities[e].attributes.count)
                entities[e].attributes[a].type = AttributeType.allCases[input.below(AttributeType.allCases.count)]
                entities[e].attributes[a].defaultValue = nil
            case 3: // toggle optionality, with or without a default
                guard !entities[e].attributes.isEmpty else { continue }
                let a = input.below(entities[e].attributes.count)
                entities[e].attributes[a].isOptional.toggle()
                if input.bool() { entities[e].attributes[a].defaultValue = Self.defaultValue(for: entities[e].attributes[a].type) }
            case 4: // drop an attribute
                guard !entities[e].attributes.isEmpty else { continue }
                entities[e].attributes.remove(at: input.below(entities[e].attributes.count))
            case 5: // add an attribute
                let name = "n\(input.below(4))"
                guard !entities[e].attributes.contains(where: { $0.name == name }) else { continue }
                entities[e].attributes.append(Self.attribute(name, &input))
            case 6: // drop an entity and what points at it
                let gone = entities.remove(at: e).name
                for i in entities.indices {
                    if entities[i].parent == gone { entities[i].parent = nil }
                    entities[i].relationships.removeAll { $0.destinationEntityName == gone }
                }
            case 7: // add an entity
                let name = "N\(input.below(3))"
                guard !entities.contains(where: { $0.name == name }) else { continue }
                entities.append(EntityShape(name: name, attributes: [Self.attribute("a", &input)]))
            case 8: // change a relationship's cardinality
                guard !entities[e].relationships.isEmpty else { continue }
                let r = input.below(entities[e].relationships.count)
                entities[e].relationships[r].isToMany.toggle()
            default: // change the parent
                let p = input.below(entities.count + 1)
                entities[e].parent = p < entities.count && p != e ? entities[p].name : nil
            }
        }
    }

    func descriptions() -> [EntityDescription] {
        entities.map { shape in
            EntityDescription(name: shape.name, isAbstract: shape.abstract, parentName: shape.parent, renamingIdentifier: shape.renamedFrom,
                              properties: shape.attributes.map { .attribute($0) } + shape.relationships.map { .relationship($0) })
        }
    }
}
