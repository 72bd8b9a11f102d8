extension ObjectModel {
    /// This model with each entity's declared properties in the order `stored`
    /// declares them, where both declare the same names; `self` when nothing moves.
    ///
    /// A record's fields and its index numbers follow declaration order, but the
    /// version hash does not (as in Core Data: reordering properties is not a model
    /// change). A store is therefore always read with the order of the model it was
    /// written with, as its metadata keeps it (`strata.model`): a Swift class whose
    /// `var`s were reordered opens the same store and reads the same values.
    ///
    /// - Throws: what `init(version:entities:)` throws (not expected: only the
    ///   order changes).
    func withPropertyOrder(of stored: ObjectModel) throws -> ObjectModel {
        var moved = false
        let reordered = entities.map { entity -> EntityDescription in
            guard let old = stored.entity(named: entity.name) else { return entity }
            let position = Dictionary(old.declaredProperties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            let names = entity.declaredProperties.map(\.name)
            guard Set(position.keys) == Set(names), position.count == names.count else { return entity }
            let sorted = entity.declaredProperties.sorted { (position[$0.name] ?? 0) < (position[$1.name] ?? 0) }
            guard sorted.map(\.name) != names else { return entity }
            moved = true
            var copy = entity
            copy.declaredProperties = sorted
            return copy
        }
        guard moved else { return self }
        return try ObjectModel(version: versionIdentifier, entities: reordered, fetchRequestTemplates: fetchRequestTemplates)
    }
}
