import Foundation
import StrataLog

/// A lightweight stage that rewrites no record: the store's layout table gains a layout
/// per changed entity, records of the older layouts are read forward by field
/// identity (``StoreSchema/ForwardMap``), and the change commits as one metadata write
/// (one manifest swap). SQLite's `ALTER TABLE … ADD COLUMN`, Realm's added property.
///
/// In place (docs/Migrations): attributes and relationships added, removed or renamed
/// (`renamingIdentifier`) whose storage does not move; entities added; entities and
/// stored to-manys removed when they hold nothing; optionality and default changes;
/// widening numeric types (Int16 → Int32 → Int64, Float → Double: one `Value` case
/// each, so nothing converts); an index added to an existing attribute, or to a new one
/// with a default (``buildIndexes``: its terms put on the records as they are); a new
/// uniqueness rule, unique attribute or compound constraint (checked in the same pass
/// over the records that builds its terms, ``buildIndexes``, before they commit; by
/// ``UniquenessScan`` when its terms exist already). An attribute made
/// required is checked before anything is written, a new uniqueness rule before its
/// terms can commit, and the stage fails naming `Entity.attribute` and the object(s)
/// when the data does not allow the change.
/// Everything else — a narrowing or other type change, external storage switched, a
/// dropped index or uniqueness rule, a to-one ↔ to-many change, entity renames and
/// hierarchy changes, a removed entity that still has objects — takes the streaming
/// rewrite (``Refusal`` says why).
struct InPlaceMigration {
    /// The destination model's schema over the new layout table.
    let schema: StoreSchema
    /// The metadata to write: the source's, with the new model, tags and layouts.
    let metadata: [String: [UInt8]]
    /// `Entity.property` of each stored property the destination no longer has: its
    /// values stay in the records written before, and are no longer read.
    let removed: [String]

    /// Why a stage is not run in place (logged; the stage is rewritten instead).
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// Plans the stage from `source` (the store's model, its schema over `records`,
    /// whose metadata is `metadata`) to `destination`.
    ///
    /// - Throws: ``Refusal`` when the change needs the rewrite; `validationFailed`
    ///   naming `Entity.attribute` and the object when an attribute made required has
    ///   an object without a value and no default to give it.
    static func plan(from source: ObjectModel, schema sourceSchema: StoreSchema, records: any RecordStore,
                     metadata: [String: [UInt8]], to destination: ObjectModel,
                     scratch: UniquenessScan.Scratch, batchSize: Int = 1024) throws -> InPlaceMigration {
        // A store written before edges converts its to-many lists when rewritten (one
        // whose model has no stored to-many has none).
        guard !sourceSchema.mayHaveLegacyLists || sourceSchema.edgeRelations.isEmpty else {
            throw Refusal(description: "the store may hold to-many lists from before edges")
        }
        var table = sourceSchema.layoutTable
        var tags: [String: UInt16] = [:]
        // Entities: no renames, no hierarchy change; a removed one must be empty.
        for entity in destination.entities {
            if let renamed = entity.renamingIdentifier, renamed != entity.name, source.entity(named: renamed) != nil {
                throw Refusal(description: "entity \(renamed) is renamed to \(entity.name)")
            }
            guard let old = source.entity(named: entity.name) else { continue }
            guard old.parentName == entity.parentName, old.isAbstract == entity.isAbstract else {
                throw Refusal(description: "entity \(entity.name) changes its parent or abstractness")
            }
            // Compound constraints are numbered by position in the sorted list: new ones
            // may only follow the old, which keep their numbers (and their terms).
            guard entity.uniquenessConstraints.starts(with: old.uniquenessConstraints) else {
                throw Refusal(description: "entity \(entity.name) drops or reorders its compound uniqueness constraints")
            }
            if let tag = sourceSchema.tags[entity.name] { tags[entity.name] = tag }
        }
        for old in source.entities where destination.entity(named: old.name) == nil {
            guard let tag = sourceSchema.tags[old.name] else { continue }
            let count = try records.count(in: StoreSchema.range(tag: tag))
            guard count == 0 else { throw Refusal(description: "entity \(old.name) is removed and holds \(count) objects") }
            table.entities[old.name] = nil
            table.retiredTags.append(tag)
        }
        // Stored to-manys (edge relations) keep their names; a removed one must be empty.
        let destinationRelations = Set(StoreSchema.edgeRelations(of: destination).map(\.name))
        for relation in sourceSchema.edgeRelations where !destinationRelations.contains(relation.name) {
            let count = try records.count(in: StoreSchema.range(tag: relation.tag))
            guard count == 0 else { throw Refusal(description: "stored to-many \(relation.name) is removed and holds \(count) edges") }
        }

        let everyTag = Array(sourceSchema.tags.values) + table.retiredTags + Array(sourceSchema.edgeTags.values)
        let firstNewTag = (everyTag.max() ?? 0) + 1
        let edges = sourceSchema.edgeTags.filter { destinationRelations.contains($0.key) }
        // The destination's fields as its model computes them (index numbers by
        // position), then matched to the source's by identity.
        let computed = try StoreSchema(model: destination, existing: tags, firstNewTag: firstNewTag,
                                       existingEdges: edges, mayHaveLegacyLists: sourceSchema.mayHaveLegacyLists)
        var usedTermIndexes = table.usedTermIndexes
        // A new inherited field gets one number for its entity and every sub-entity.
        var freshByWanted: [UInt32: UInt32] = [:]
        var removed: [String] = []
        var builds: [IndexBuild] = []
        for entity in destination.entities {
            guard let layout = computed.shapes[entity.name]?.layout else { continue }
            let old = source.entity(named: entity.name)
            var kept = Set<String>()
            var tableEntity = table.entities[entity.name] ?? LayoutTable.Entity(tag: layout.tag, layouts: [], nextFieldID: 1)
            let previous = tableEntity.current
            var fields: [LayoutTable.Field] = []
            for field in layout.fields {
                let sourceName = try matchedSourceName(field, in: entity, old: old, destination: destination, source: source)
                if let sourceName { kept.insert(sourceName) }
                let prior = sourceName.flatMap { name in previous?.fields.first { $0.name == name } }
                var termIndex = field.termIndex
                if let wanted = field.termIndex {
                    if let kept = prior?.termIndex {
                        termIndex = kept
                    } else if let fresh = freshByWanted[wanted] {
                        termIndex = fresh
                    } else if usedTermIndexes.contains(wanted) {
                        let fresh = try freshTermIndex(near: wanted, used: usedTermIndexes)
                        freshByWanted[wanted] = fresh
                        termIndex = fresh
                    } else {
                        freshByWanted[wanted] = wanted
                    }
                    if let termIndex {
                        usedTermIndexes.insert(termIndex)
                        // An existing attribute that becomes indexed, or a new indexed one whose
                        // default the existing objects read: their records need terms.
                        let filled = !(entity.attributesByName[field.name]?.defaultValue?.isNull ?? true)
                        if old != nil, prior == nil ? filled : prior?.termIndex == nil, case .attribute = field.kind {
                            builds.append(IndexBuild(entity: entity.name, fields: [field.name], termIndex: termIndex, compound: false))
                        }
                    }
                }
                var entry = LayoutTable.Field(id: prior?.id ?? tableEntity.nextFieldID, name: field.name, kind: field.kind.tableName,
                                              type: field.kind.attributeType, external: field.kind.isExternal ? true : nil, termIndex: termIndex,
                                              fill: prior?.fill)
                if prior == nil {
                    tableEntity.nextFieldID += 1
                    if case .attribute = field.kind { entry.fill = LayoutTable.fillString(entity.attributesByName[field.name]?.defaultValue) }
                }
                fields.append(entry)
            }
            for field in previous?.fields ?? [] where !kept.contains(field.name) && field.kind != "toManyList" {
                removed.append("\(entity.name).\(field.name)")
            }
            if previous?.fields != fields {
                tableEntity.layouts.append(LayoutTable.Layout(id: (previous?.id ?? 0) + 1, fields: fields))
            }
            table.entities[entity.name] = tableEntity
        }
        if !builds.isEmpty {
            // As buildIndexes reserves them on disk first: kept retired, so that no
            // later field takes one even once this field's layouts are dropped.
            table.retiredTermIndexes = Array(Set((table.retiredTermIndexes ?? []) + builds.map(\.termIndex))).sorted()
        }
        let schema = try StoreSchema(model: destination, existing: tags, firstNewTag: firstNewTag,
                                     existingEdges: edges, mayHaveLegacyLists: sourceSchema.mayHaveLegacyLists,
                                     layoutTable: table)
        // New compound constraints: their terms are put on the records as a new index's are.
        for (name, shape) in schema.shapes where sourceSchema.shapes[name] != nil {
            let had = Set(sourceSchema.shapes[name]?.layout.compoundTerms.map(\.index) ?? [])
            for rule in shape.uniqueConstraints where rule.isCompound && !had.contains(rule.termIndex) {
                builds.append(IndexBuild(entity: name, fields: rule.attributes, termIndex: rule.termIndex, compound: true))
            }
        }
        try checkRequired(from: source, schema: sourceSchema, records: records, to: destination)
        let added = addedRules(from: source, schema: schema).map {
            UniquenessScan.Rule(constraint: $0, sourceHash: source.versionHash, destinationHash: destination.versionHash)
        }
        // A rule whose terms this stage builds is checked in the build's pass over the
        // records; one whose terms are there already (an indexed attribute made unique)
        // by a scan of its own. Neither commits anything before the check passes.
        let existingTags = Set(sourceSchema.tags.values)
        var builtTags: [UInt32: Set<UInt16>] = [:]
        for build in builds { if let tag = schema.tags[build.entity] { builtTags[build.termIndex, default: []].insert(tag) } }
        let inPass = added.filter { rule in
            rule.constraint.scopeTags.intersection(existingTags).isSubset(of: builtTags[rule.constraint.termIndex] ?? [])
        }
        let scanned = added.filter { rule in !inPass.contains { $0.constraint.termIndex == rule.constraint.termIndex } }
        try UniquenessScan(schema: schema, records: records, scratch: scratch).check(scanned)
        if !builds.isEmpty {
            try buildIndexes(builds, checking: inPass, schema: schema, sourceTable: sourceSchema.layoutTable, records: records,
                             metadata: metadata, scratch: scratch, batchSize: batchSize)
        }

        var metadata = metadata
        metadata[StoreSchema.modelHashKey] = Array(destination.versionHash.utf8)
        metadata[StoreSchema.metadataKey] = try schema.encodedTags()
        if metadata[StoreSchema.edgesMetadataKey] != nil || !schema.edgeTags.isEmpty {
            metadata[StoreSchema.edgesMetadataKey] = try schema.encodedEdgeTags()
        }
        metadata[StoreSchema.modelKey] = Array(try destination.jsonData())
        metadata[LayoutTable.metadataKey] = try schema.layoutTable.encoded()
        // Segments from now on hold the new layout only: the next open sets the mark.
        metadata[LayoutTable.rewriteMarkKey] = nil
        return InPlaceMigration(schema: schema, metadata: metadata, removed: removed)
    }

    /// The name the field had in the source entity's current layout, nil for a new
    /// field; refuses a field whose storage moves.
    static func matchedSourceName(_ field: StoreSchema.Field, in entity: EntityDescription, old: EntityDescription?,
                                  destination: ObjectModel, source: ObjectModel) throws -> String? {
        guard let old, let property = entity.property(named: field.name) else { return nil }
        let renamed: String?
        switch property {
        case .attribute(let attribute): renamed = attribute.renamingIdentifier
        case .relationship(let relationship): renamed = relationship.renamingIdentifier
        }
        var candidate = old.property(named: field.name)
        if let renamed, renamed != field.name, let earlier = old.property(named: renamed) { candidate = earlier }
        guard let match = candidate else {
            // A new property: an attribute needs a value for the objects there are.
            if case .attribute(let attribute) = property, !attribute.isOptional, attribute.defaultValue?.isNull ?? true {
                throw Refusal(description: "\(entity.name).\(field.name) is new, required and has no default")
            }
            if case .relationship(let relationship) = property, !relationship.isToMany, !relationship.isOptional {
                throw Refusal(description: "\(entity.name).\(field.name) is a new required relationship")
            }
            return nil
        }
        switch (property, match) {
        case (.attribute(let new), .attribute(let was)):
            guard !was.isTransient else { throw Refusal(description: "\(entity.name).\(field.name) was transient") }
            guard new.type == was.type || widens(was.type, to: new.type) else {
                throw Refusal(description: "\(entity.name).\(field.name) changes type \(was.type.migrationDisplayName) → \(new.type.migrationDisplayName)")
            }
            guard new.allowsExternalStorage == was.allowsExternalStorage else {
                throw Refusal(description: "\(entity.name).\(field.name) moves between the record and the blob area")
            }
            // A new index is built in place (its terms put on the records as they are,
            // `buildIndexes`), and a new uniqueness rule is checked before anything is
            // written (in that pass, or by `UniquenessScan`); a dropped index or rule should
            // not leave its terms behind: both rewrite.
            let wasIndexed = was.isIndexed || was.isUnique, isIndexed = new.isIndexed || new.isUnique
            if (was.isUnique && !new.isUnique) || (wasIndexed && !isIndexed) {
                throw Refusal(description: "\(entity.name).\(field.name) drops its uniqueness rule or its index")
            }
        case (.relationship(let new), .relationship(let was)):
            guard new.isToMany == was.isToMany, new.destinationEntityName == was.destinationEntityName,
                  StoreSchema.isStoredList(new, model: destination) == StoreSchema.isStoredList(was, model: source) else {
                throw Refusal(description: "\(entity.name).\(field.name) changes how the relationship is stored")
            }
            if new.isToMany && match.name != field.name {
                throw Refusal(description: "stored to-many \(entity.name).\(field.name) is renamed")
            }
        default:
            throw Refusal(description: "\(entity.name).\(field.name) changes between attribute and relationship")
        }
        return match.name
    }

    /// The uniqueness rules `schema` (the destination's) has that the source model did
    /// not, each once, on the entity that declares it: a unique attribute that was not
    /// (or is new), a compound constraint the entity did not declare. Rules of new
    /// entities bind no stored object and are left out.
    static func addedRules(from source: ObjectModel, schema: StoreSchema) -> [UniqueConstraint] {
        var added: [UniqueConstraint] = []
        for (name, shape) in schema.shapes.sorted(by: { $0.key < $1.key }) {
            guard let old = source.entity(named: name) else { continue }
            for rule in shape.uniqueConstraints where rule.entity == name {
                if rule.isCompound {
                    if !old.uniquenessConstraints.contains(rule.attributes) { added.append(rule) }
                    continue
                }
                let attribute = shape.entity.attributesByName[rule.attributes[0]]
                let sourceName = attribute?.renamingIdentifier.flatMap { old.attributesByName[$0] != nil ? $0 : nil } ?? rule.attributes[0]
                if !(old.attributesByName[sourceName]?.isUnique ?? false) { added.append(rule) }
            }
        }
        return added
    }

    /// Widening changes every stored value survives unchanged.
    static func widens(_ from: AttributeType, to: AttributeType) -> Bool {
        switch (from, to) {
        case (.int16, .int32), (.int16, .int64), (.int32, .int64), (.float, .double): true
        default: false
        }
    }

    /// An index number of the same declaring entity that no field has ever used.
    static func freshTermIndex(near wanted: UInt32, used: Set<UInt32>) throws -> UInt32 {
        let high = wanted & 0xFFFF_0000
        let lows = used.filter { $0 & 0xFFFF_0000 == high }.map { $0 & 0xFFFF }.filter { $0 < 0x8000 }
        let next = (lows.max() ?? 0) + 1
        guard next < 0x8000 else { throw Refusal(description: "no index number left for a new field") }
        return high | next
    }

    /// An attribute made required: every object must have a value already (nothing is
    /// written, so a default cannot be given to the objects without one).
    static func checkRequired(from source: ObjectModel, schema: StoreSchema, records: any RecordStore, to destination: ObjectModel) throws {
        for entity in destination.entities {
            guard let old = source.entity(named: entity.name), let tag = schema.tags[entity.name],
                  let layout = schema.shapes[entity.name]?.layout else { continue }
            var numbers: [(number: Int, name: String, hasDefault: Bool)] = []
            for attribute in entity.storedAttributes where !attribute.isOptional {
                let sourceName = attribute.renamingIdentifier.flatMap { old.attributesByName[$0] != nil ? $0 : nil } ?? attribute.name
                guard let was = old.attributesByName[sourceName], was.isOptional, let number = layout.fieldNumbers[sourceName] else { continue }
                numbers.append((number, attribute.name, !(attribute.defaultValue?.isNull ?? true)))
            }
            guard !numbers.isEmpty else { continue }
            try records.scan(StoreSchema.range(tag: tag), batchSize: 1024) { batch in
                for record in batch {
                    let object = try schema.decode(record)
                    for field in numbers where field.number >= object.fields.count || object.fields[field.number].isNull {
                        if field.hasDefault {
                            throw Refusal(description: "\(entity.name).\(field.name) becomes required and some objects need its default written")
                        }
                        let id = ObjectID(entityName: entity.name, key: record.key, storeIdentifier: "")
                        throw StrataError(.migrationValidationFailed, "\(entity.name).\(field.name) becomes required, and \(id) has no value for it; the store is unchanged",
                                          context: ["entity": entity.name, "property": field.name, "object": id.description])
                    }
                }
            }
        }
    }
}
