extension ObjectModel {
    /// The first line of the canonical model description. Bump the number only with a
    /// deliberate change of the description, documented in docs/MODEL.md.
    static let canonicalHeader = "strata-model-v2\n"
    /// The first line of an entity's canonical description, for ``entityVersionHashes``.
    static let entityCanonicalHeader = "strata-entity-v2\n"
    /// The first line of the index description, for ``indexHash``.
    static let indexCanonicalHeader = "strata-index-v1\n"
    /// The header of the version 1 description, which left indexes and uniqueness out.
    /// Stores written before version 2 record a hash of that text (see
    /// ``legacyVersionHash``).
    static let legacyCanonicalHeader = "strata-model-v1\n"

    /// The exact text whose SHA-256 is ``versionHash`` (docs/MODEL.md, "Version hash").
    ///
    /// One line per entity, sorted by name, each followed by one line per stored
    /// property it declares, sorted by name, then one line per compound uniqueness
    /// constraint it declares. Only what changes how records and their index terms are
    /// stored appears; a test pins this text so that it never changes silently.
    public var canonicalDescription: String {
        Self.canonicalHeader + entities.map { Self.canonicalBlock($0, legacy: false) }.joined()
    }

    /// The version 1 text (docs/MODEL.md, "Version 1"): the same without the indexed
    /// and unique flags and without compound constraints.
    var legacyCanonicalDescription: String {
        Self.legacyCanonicalHeader + entities.map { Self.canonicalBlock($0, legacy: true) }.joined()
    }

    /// Computes the model, per-entity, index and legacy hashes of resolved, sorted entities.
    static func computeHashes(
        _ entities: [EntityDescription]
    ) -> (model: String, entities: [String: String], index: String, legacy: String) {
        var blocks: [String: String] = [:]
        for entity in entities { blocks[entity.name] = canonicalBlock(entity, legacy: false) }
        let model = canonicalHeader + entities.compactMap { blocks[$0.name] }.joined()
        let legacy = legacyCanonicalHeader + entities.map { canonicalBlock($0, legacy: true) }.joined()
        var entityHashes: [String: String] = [:]
        for entity in entities {
            // An entity's records hold its ancestors' properties too, so a change in an
            // ancestor changes the entity's hash.
            let lineage = entity.ancestorNames.reversed() + [entity.name]
            let text = entityCanonicalHeader + lineage.compactMap { blocks[$0] }.joined()
            entityHashes[entity.name] = SHA256.hexDigest(Array(text.utf8))
        }
        var index = indexCanonicalHeader
        for entity in entities {
            for attribute in sortedDeclared(entity).compactMap(\.attribute)
            where !attribute.isTransient && (attribute.isIndexed || attribute.isUnique) {
                index += "index \(entity.name) \(attribute.name)"
                    + " indexed=\(flag(attribute.isIndexed)) unique=\(flag(attribute.isUnique))\n"
            }
            for constraint in entity.uniquenessConstraints {
                index += "unique \(entity.name) \(constraint.joined(separator: ","))\n"
            }
        }
        return (
            SHA256.hexDigest(Array(model.utf8)),
            entityHashes,
            SHA256.hexDigest(Array(index.utf8)),
            SHA256.hexDigest(Array(legacy.utf8))
        )
    }

    private static func canonicalBlock(_ entity: EntityDescription, legacy: Bool) -> String {
        var text = "entity \(entity.name) abstract=\(flag(entity.isAbstract))"
            + " parent=\(entity.parentName ?? "-")\n"
        for property in sortedDeclared(entity) {
            switch property {
            case .attribute(let attribute):
                // Transient attributes are never written, so they cannot matter to a store.
                guard !attribute.isTransient else { continue }
                text += "attribute \(attribute.name) type=\(attribute.type.rawValue)"
                    + " optional=\(flag(attribute.isOptional))"
                    + " external=\(flag(attribute.allowsExternalStorage))"
                // Only transformable lines carry the transformer, so that the text (and
                // hash) of every model without one is what it always was; the name counts
                // because the stored bytes mean what that transformer says they mean.
                if attribute.type == .transformable {
                    text += " transformer=\(attribute.valueTransformerName ?? "-")"
                }
                if !legacy {
                    text += " indexed=\(flag(attribute.isIndexed)) unique=\(flag(attribute.isUnique))"
                }
                text += "\n"
            case .relationship(let relationship):
                text += "relationship \(relationship.name)"
                    + " destination=\(relationship.destinationEntityName)"
                    + " inverse=\(relationship.inverseName ?? "-")"
                    + " toMany=\(flag(relationship.isToMany))"
                    + " ordered=\(flag(relationship.isOrdered))"
                    + " optional=\(flag(relationship.isOptional))\n"
            }
        }
        if !legacy {
            // Normalized by the model: names sorted within a constraint, constraints sorted.
            for constraint in entity.uniquenessConstraints {
                text += "unique \(constraint.joined(separator: ","))\n"
            }
        }
        return text
    }

    private static func sortedDeclared(_ entity: EntityDescription) -> [PropertyDescription] {
        entity.declaredProperties.sorted { ModelName.precedes($0.name, $1.name) }
    }

    private static func flag(_ value: Bool) -> String { value ? "1" : "0" }
}
