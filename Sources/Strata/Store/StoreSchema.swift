import Foundation
import StrataLog

/// How a model sits in a store: each entity's 16-bit tag (the high bits of its
/// objects' keys), the fields of each entity's record in order, and which index
/// numbers its terms use. Kept in the store's manifest metadata under
/// `strata.schema` (docs/FORMAT.md §11), so keys stay stable across opens.
struct StoreSchema: Sendable {
    /// One stored property of an entity's record.
    struct Field: Sendable {
        enum Kind: Sendable, Equatable {
            case attribute(AttributeType, external: Bool)
            /// A to-one relationship: the destination's key, 0 for nil.
            case toOne
            /// A to-many stored as edge records (ordered, many-to-many, or without
            /// inverse). The field keeps its place in the layout so that records written
            /// before edges (which held the list of keys here) still decode; new
            /// versions write null (docs/FORMAT.md §11).
            case toManyList
        }

        var name: String
        var kind: Kind
        /// The index number of this field's terms (to-one references, indexed or unique
        /// attributes); nil when the field contributes none. Numbered after the entity
        /// that declares the property, so a parent's index covers its sub-entities.
        var termIndex: UInt32?
    }

    struct EntityLayout: Sendable {
        var name: String
        var tag: UInt16
        var fields: [Field]
        var fieldNumbers: [String: Int]
        /// Tags of this entity and every sub-entity, for fetches that include them.
        var kindTags: [UInt16]
        /// The terms of compound uniqueness constraints binding the entity: each one's
        /// index number and the field numbers of its attributes (sorted by name).
        var compoundTerms: [(index: UInt32, fieldNumbers: [Int])] = []
        /// The layout records are written with now (docs/FORMAT.md §11.4).
        var layoutID: UInt32 = 1
        /// The layout of version-1 records, which carry no id: the entity's first.
        var firstLayoutID: UInt32 = 1
        /// How a record of each older layout reads as this one.
        var forwards: [UInt32: ForwardMap] = [:]
        /// What each field of the current layout may hold.
        var rules: [FieldRule] = []
        /// The same for each older layout.
        var olderRules: [UInt32: [FieldRule]] = [:]

        /// The layout a record names, or its entity's first for a version-1 record.
        func layout(named id: UInt32?) -> UInt32 { id ?? firstLayoutID }

    }

    /// A record of an older layout read as the current one: each current field takes
    /// the old field of the same identity, or, when the old layout had none, the fill
    /// (the attribute's default when the field was added, else null). Fields the
    /// current layout dropped are skipped. Widening numeric changes need no conversion:
    /// every integer width is one `Value.int`, Float and Double one `Value.double`.
    struct ForwardMap: Sendable {
        /// Current field number → old field number, nil when the old layout lacks it.
        let sources: [Int?]
        let fills: [FieldValue]

        func apply(_ fields: [FieldValue]) -> [FieldValue] {
            var result: [FieldValue] = []
            result.reserveCapacity(sources.count)
            for (number, source) in sources.enumerated() {
                if let source { result.append(source < fields.count ? fields[source] : .null) } else { result.append(fills[number]) }
            }
            return result
        }
    }

    /// An entity's description and layout in one shared object: every ManagedObject
    /// points at its entity's shape instead of holding both structs (about 150 bytes
    /// and a dozen references to retain per object).
    /// It also keeps the property lists every insert and save walks, which
    /// `EntityDescription` computes (and allocates) on each call.
    final class EntityShape: Sendable {
        let entity: EntityDescription
        let layout: EntityLayout
        let storedAttributes: [AttributeDescription]
        /// Each stored attribute's rules and field number, in `storedAttributes`' order.
        let attributeChecks: [AttributeCheck]
        /// Every uniqueness rule binding the entity's objects, inherited ones included.
        let uniqueConstraints: [UniqueConstraint]
        let relationships: [RelationshipDescription]
        let toOneRelationships: [RelationshipDescription]
        /// What `insert` sets before the caller does: each stored attribute's default.
        let insertDefaults: [(number: Int, value: FieldValue)]
        /// The transient attributes and the stored ones with a field in the current
        /// layout, resolved to their field numbers, in the entity's attribute order.
        let slotList: [AttributeSlot]
        /// `slotList`'s names, and each slot's field number (-1: transient) and type,
        /// for `value(forKey:)` and `setValue(_:forKey:)`: found by comparing names and
        /// read in place, where a slot handed out was copied and destroyed per call (its
        /// name and default retained and released), a large share of a `setValue`.
        let slotNames: [String]
        let slotFacts: [(number: Int, type: AttributeType)]
        /// `slotNames`' positions by name, for an entity of many attributes.
        let slotIndexByName: [String: Int]
        /// The current layout's field names by field number, searched by
        /// `fieldNumber(named:)`.
        let fieldNames: [String]
        /// How many fields the current layout has.
        let fieldCount: Int
        /// Whether the entity is abstract (only its sub-entities have objects).
        let isAbstract: Bool
        /// Per field number: an external binary attribute (large values go to the blob area).
        let isExternalField: [Bool]
        /// The layout's ids and rules, kept apart from `layout` so that checking a record
        /// reads two arrays of this object instead of copying the layout struct (every
        /// array and dictionary in it retained and released per record read).
        let layoutID: UInt32
        let firstLayoutID: UInt32
        let rules: [FieldRule]
        /// How each older layout reads as the current one, found by a short search
        /// (an entity has few older layouts) rather than by hashing the id per record.
        let forwardPlans: [ForwardPlan]

        /// Holds a decoded record to its layout and reads it as the current layout: a
        /// current record is checked; a record of an older layout is read forward by
        /// its layout's plan. The record's fields should have room for `fieldCount`
        /// fields (`ObjectCodec.decode(_:capacity:)`), so that fills are appended in place.
        ///
        /// - Throws: `.corrupt` for a layout the entity never had, or fields their
        ///   layout's rules (or, forwarded, the current layout's) do not admit.
        @inline(__always)
        func read(_ object: inout StoredObject) throws {
            let id = object.layoutID ?? firstLayoutID
            if id == layoutID {
                try FieldRule.check(object.fields, against: rules, key: object.key, layout: id, entity: entity.name)
                return
            }
            try readForward(&object, from: id)
        }

        /// `read(_:)` for a record of an older layout, apart so that the current
        /// layout's check stays small where it is inlined.
        func readForward(_ object: inout StoredObject, from id: UInt32) throws {
            guard let plan = forwardPlans.first(where: { $0.layoutID == id }) else {
                throw StrataError(.corrupt, "object record \(object.key) names layout \(id), which \(entity.name) never had", context: ["entity": entity.name])
            }
            try plan.forward(&object, currentRules: rules, currentLayout: layoutID, entity: entity.name)
        }

        init(entity: EntityDescription, layout: EntityLayout, uniqueConstraints: [UniqueConstraint]) {
            self.entity = entity
            self.layout = layout
            storedAttributes = entity.storedAttributes
            attributeChecks = storedAttributes.map { AttributeCheck($0, number: layout.fieldNumbers[$0.name]) }
            self.uniqueConstraints = uniqueConstraints
            relationships = entity.relationships
            toOneRelationships = relationships.filter { !$0.isToMany }
            let attributeSlots = Self.attributeSlots(entity: entity, layout: layout)
            slotList = entity.attributes.compactMap { attributeSlots[$0.name] }
            slotNames = slotList.map(\.key)
            slotFacts = slotList.map { ($0.number ?? -1, $0.type) }
            slotIndexByName = Dictionary(slotNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            fieldNames = layout.fields.map(\.name)
            fieldCount = layout.fields.count
            isAbstract = entity.isAbstract
            layoutID = layout.layoutID
            firstLayoutID = layout.firstLayoutID
            rules = layout.rules
            forwardPlans = layout.forwards.keys.sorted().compactMap { id in
                guard let map = layout.forwards[id], let older = layout.olderRules[id] else { return nil }
                return ForwardPlan(layoutID: id, olderRules: older, map: map, currentRules: layout.rules)
            }
            isExternalField = layout.fields.map { if case .attribute(_, external: true) = $0.kind { true } else { false } }
            insertDefaults = storedAttributes.compactMap { attribute in
                guard let value = attribute.defaultValue, !value.isNull, let number = layout.fieldNumbers[attribute.name] else { return nil }
                return (number, .value(value))
            }
        }
    }

    let tags: [String: UInt16]
    /// Each entity's shape, its layout included.
    let shapes: [String: EntityShape]
    let entityByTag: [UInt16: String]
    /// Each entity's shape by its tag, for reading a record by its key.
    let shapeByTag: [UInt16: EntityShape]
    /// The edge relations of the stored to-manys, by name (`Entity.relationship` of
    /// the primary side), each with its own key tag (docs/FORMAT.md §11).
    let edgeTags: [String: UInt16]
    let edgeRelations: [EdgeRelation]
    /// `Entity.relationship` of every entity (sub-entities included) → the edge
    /// relation it reads and on which side.
    let edgeSides: [String: EdgeSide]
    let edgeByTag: [UInt16: EdgeRelation]
    /// Whether records may still hold to-many lists from before edges: the store's
    /// metadata has no edge tags (a release that wrote lists created it, and no
    /// migration has rewritten it since). When false no owner record is read to look
    /// for a list.
    let mayHaveLegacyLists: Bool

    /// Metadata key under which the tags are stored.
    static let metadataKey = "strata.schema"
    static let modelHashKey = "strata.modelHash"
    static let modelKey = "strata.model"
    /// Metadata key marking a store whose index terms are exact (docs/FORMAT.md §11.1).
    static let termsKey = "strata.terms"
    static let exactTermsVersion: [UInt8] = [2]
    /// Metadata key marking a store whose external binaries carry index terms like
    /// inline values (docs/MODEL.md, "Exact uniqueness and index lookups"): written when
    /// a store is created and by every migration that rewrites one. In a store without
    /// it, an indexed or unique attribute stored in the blob area may have no term, so
    /// uniqueness checks and lookups on it scan.
    static let blobTermsKey = "strata.blobTerms"
    static let blobTermsVersion: [UInt8] = [1]
    /// Metadata key of the edge tags: JSON `{"Entity.relationship": tag}`.
    static let edgesMetadataKey = "strata.edges"
    /// The first edge tag; edge tags count down from here, skipping entity tags.
    static let topEdgeTag: UInt16 = 0xFFFE

    /// The key range of an entity's objects (serial 0 is reserved for its counter record).
    static func range(tag: UInt16) -> Range<RecordKey> {
        // Tag 0xFFFF is never handed out, but an id or a damaged table can name it: its
        // range ends at the last key rather than wrapping to 0.
        let end = tag == .max ? UInt64.max : (UInt64(tag) + 1) << ObjectID.serialBits
        return RecordKey(UInt64(tag) << ObjectID.serialBits | 1)..<RecordKey(end)
    }

    /// The key of an entity's serial counter record.
    static func counterKey(tag: UInt16) -> RecordKey { RecordKey(UInt64(tag) << ObjectID.serialBits) }

    static func key(tag: UInt16, serial: UInt64) -> RecordKey { RecordKey(UInt64(tag) << ObjectID.serialBits | serial) }

    static func tag(of key: RecordKey) -> UInt16 { UInt16(truncatingIfNeeded: key.rawValue >> ObjectID.serialBits) }

    /// Builds the schema for `model`, keeping the tags already assigned in `existing`
    /// and giving new entities the next free ones.
    /// Every layout the store has written (given, or derived from this model's).
    let layoutTable: LayoutTable
    /// Whether any entity has records of an older layout to read forward. When none
    /// has (every store never migrated in place), every layout id is 1 and decoding
    /// skips the lookup of the record's entity.
    let hasOlderLayouts: Bool

    init(model: ObjectModel, existing: [String: UInt16] = [:], firstNewTag: UInt16 = 1,
         existingEdges: [String: UInt16] = [:], mayHaveLegacyLists: Bool = false,
         layoutTable: LayoutTable? = nil) throws {
        try Self.checkStoredTags(existing, edges: existingEdges)
        var tags = existing.filter { name, _ in model.entity(named: name) != nil }
        var next = max(firstNewTag, (existing.values.max() ?? 0) + 1)
        let relations = Self.edgeRelations(of: model)
        let relationNames = Set(relations.map(\.name))
        var edgeTags = existingEdges.filter { relationNames.contains($0.key) }
        let takenByEdges = Set(edgeTags.values)
        for entity in model.entities where tags[entity.name] == nil {
            while takenByEdges.contains(next) { next += 1 }
            guard next < UInt16.max else { throw StrataError(.invalidModel, "too many entities for one store (65534 at most)") }
            tags[entity.name] = next
            next += 1
        }
        let entityTags = Set(tags.values)
        var nextEdge = Self.topEdgeTag
        for relation in relations where edgeTags[relation.name] == nil {
            while entityTags.contains(nextEdge) || edgeTags.values.contains(nextEdge) { nextEdge -= 1 }
            guard nextEdge > (tags.values.max() ?? 0) else {
                throw StrataError(.invalidModel, "too many entities and stored to-many relationships for one store")
            }
            edgeTags[relation.name] = nextEdge
            nextEdge -= 1
        }
        var layouts: [String: EntityLayout] = [:]
        var constraintsByEntity: [String: [UniqueConstraint]] = [:]
        for entity in model.entities {
            guard entity.properties.count < 0x8000 else {
                throw StrataError(.invalidModel, "entity \(entity.name) has \(entity.properties.count) properties; a store holds at most 32767", context: ["entity": entity.name])
            }
            guard let tag = tags[entity.name] else { continue }
            var fields: [Field] = []
            for property in entity.properties {
                let declaring = Self.declaringEntity(of: property.name, in: entity, model: model)
                let declaringTag = tags[declaring] ?? tag
                switch property {
                case .attribute(let attribute):
                    guard !attribute.isTransient else { continue }
                    let number = UInt32(fields.count)
                    let indexed = attribute.isIndexed || attribute.isUnique
                    fields.append(Field(name: attribute.name, kind: .attribute(attribute.type, external: attribute.allowsExternalStorage),
                                        termIndex: indexed ? Self.termIndex(tag: declaringTag, property: property.name, in: declaring, model: model) : nil))
                    _ = number
                case .relationship(let relationship):
                    if !relationship.isToMany {
                        fields.append(Field(name: relationship.name, kind: .toOne,
                                            termIndex: Self.termIndex(tag: declaringTag, property: property.name, in: declaring, model: model)))
                    } else if Self.isStoredList(relationship, model: model) {
                        fields.append(Field(name: relationship.name, kind: .toManyList, termIndex: nil))
                    }
                }
            }
            let kindTags = ([entity.name] + entity.allSubentityNames).compactMap { tags[$0] }
            var versions: (id: UInt32, first: UInt32, forwards: [UInt32: ForwardMap]) = (1, 1, [:])
            if let table = layoutTable?.entities[entity.name] {
                versions = try Self.adopt(table, into: &fields, entity: entity.name)
            }
            let fieldNumbers = Dictionary(uniqueKeysWithValues: fields.enumerated().map { ($1.name, $0) })
            var layout = EntityLayout(name: entity.name, tag: tag, fields: fields, fieldNumbers: fieldNumbers, kindTags: kindTags)
            (layout.layoutID, layout.firstLayoutID, layout.forwards) = versions
            layout.rules = fields.map { FieldRule($0.kind) }
            for older in layoutTable?.entities[entity.name]?.layouts.dropLast() ?? [] {
                layout.olderRules[older.id] = older.fields.map { field in Field.Kind.fromTable(field).map(FieldRule.init) ?? FieldRule(code: 0xFF) }
            }
            var constraints: [UniqueConstraint] = []
            var compoundPosition: [String: UInt32] = [:]
            for rule in model.uniquenessRules(of: entity) {
                guard let declaringTag = tags[rule.declaring], let declaring = model.entity(named: rule.declaring) else { continue }
                let scope = Set(([declaring.name] + declaring.allSubentityNames).compactMap { tags[$0] })
                let numbers = rule.attributes.compactMap { fieldNumbers[$0] }
                guard numbers.count == rule.attributes.count else { continue }
                let index: UInt32
                if rule.compound {
                    // Numbered after the properties (positions stay below 0x8000), in the
                    // declaring entity's sorted constraint order, which the hash covers.
                    let position = compoundPosition[rule.declaring, default: 0]
                    compoundPosition[rule.declaring] = position + 1
                    index = UInt32(declaringTag) << 16 | (0x8000 + position)
                    layout.compoundTerms.append((index, numbers))
                } else {
                    guard let termIndex = fields[numbers[0]].termIndex else { continue }
                    index = termIndex
                }
                constraints.append(UniqueConstraint(entity: rule.declaring, attributes: rule.attributes, termIndex: index, scopeTags: scope))
            }
            layouts[entity.name] = layout
            constraintsByEntity[entity.name] = constraints
        }
        self.tags = tags
        var shapes: [String: EntityShape] = [:]
        for (name, layout) in layouts {
            if let entity = model.entity(named: name) {
                shapes[name] = EntityShape(entity: entity, layout: layout, uniqueConstraints: constraintsByEntity[name] ?? [])
            }
        }
        self.shapes = shapes
        self.entityByTag = Dictionary(uniqueKeysWithValues: tags.map { ($1, $0) })
        self.shapeByTag = tags.reduce(into: [:]) { byTag, pair in if let shape = shapes[pair.key] { byTag[pair.value] = shape } }
        var tagged: [EdgeRelation] = []
        var sides: [String: EdgeSide] = [:]
        for var relation in relations {
            guard let tag = edgeTags[relation.name] else { continue }
            relation.tag = tag
            tagged.append(relation)
            for entity in model.entities {
                if entity.isKind(of: relation.ownerEntity) {
                    sides["\(entity.name).\(relation.relationship)"] = EdgeSide(relation: relation, isOwner: true)
                }
                if let inverse = relation.inverseName, entity.isKind(of: relation.memberEntity),
                   entity.relationshipsByName[inverse]?.isToMany == true {
                    sides["\(entity.name).\(inverse)"] = EdgeSide(relation: relation, isOwner: false)
                }
            }
        }
        self.edgeTags = edgeTags
        self.edgeRelations = tagged
        self.edgeSides = sides
        self.edgeByTag = Dictionary(uniqueKeysWithValues: tagged.map { ($0.tag, $0) })
        self.mayHaveLegacyLists = mayHaveLegacyLists
        self.layoutTable = layoutTable ?? LayoutTable.derived(from: layouts.values.sorted { $0.tag < $1.tag })
        self.hasOlderLayouts = layouts.values.contains { !$0.forwards.isEmpty || $0.layoutID != 1 }
    }

    /// Refuses stored tags that no store writes: two entities, two edge relations, or an
    /// entity and an edge relation under one tag. Their records would read as another
    /// entity's, and the tables built from them would trap.
    static func checkStoredTags(_ tags: [String: UInt16], edges: [String: UInt16]) throws {
        var owner: [UInt16: String] = [:]
        for (name, tag) in tags.sorted(by: { $0.key < $1.key }).map({ ($0.key, $0.value) }) + edges.sorted(by: { $0.key < $1.key }).map({ ("edge " + $0.key, $0.value) }) {
            // Tags run from 1 to topEdgeTag: 0 and 0xFFFF are never handed out.
            guard tag > 0, tag <= topEdgeTag else {
                throw StrataError(.corrupt, "the store's schema gives \(name) tag \(tag), which no store hands out", context: ["entity": name, "tag": "\(tag)"])
            }
            if let other = owner[tag] {
                throw StrataError(.corrupt, "the store's schema gives \(other) and \(name) the same tag \(tag)",
                                  context: ["entity": name, "other": other, "tag": "\(tag)"])
            }
            owner[tag] = name
        }
    }

    /// Takes an entity's layouts from the store's table: the fields the model computes
    /// must be the table's current layout (same names and kinds, in order), whose index
    /// numbers they take (an in-place migration kept them while positions moved); every
    /// older layout gets its forward map.
    static func adopt(_ table: LayoutTable.Entity, into fields: inout [Field], entity: String) throws -> (UInt32, UInt32, [UInt32: ForwardMap]) {
        guard let current = table.current, current.fields.count == fields.count,
              zip(current.fields, fields).allSatisfy({ $0.name == $1.name && Field.Kind.fromTable($0) == $1.kind }) else {
            throw StrataError(.corrupt, "the store's layout table does not match its model for \(entity)", context: ["entity": entity])
        }
        for number in fields.indices { fields[number].termIndex = current.fields[number].termIndex }
        var forwards: [UInt32: ForwardMap] = [:]
        for layout in table.layouts.dropLast() {
            let positions = Dictionary(layout.fields.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
            forwards[layout.id] = ForwardMap(sources: current.fields.map { positions[$0.id] },
                                             fills: try current.fields.map { try LayoutTable.fillValue($0.fill) })
        }
        return (current.id, table.layouts[0].id, forwards)
    }

    /// A record's fields in its entity's current layout: a record of an older layout
    /// is read forward (``ForwardMap``); a record of no known layout is damage.
    func forward(_ object: StoredObject) throws -> StoredObject {
        guard let shape = shapeByTag[Self.tag(of: object.key)] else {
            try Self.checkOnlyLayout(object)
            return object
        }
        // What an older field or a fill hands the current layout must be what the
        // current field holds (widening keeps the kind): a table whose field ids or
        // fills were edited would hand over another field's value. The plan checks
        // what can differ (``ForwardPlan/recheck``).
        var forwarded = object
        try shape.read(&forwarded)
        return forwarded
    }

    /// An object record of an older layout written in its entity's current one, for
    /// compaction (``LogStore/setRecordRewriter(_:)``): nil for a record already
    /// current, for every record that is not an object's (counters, edges), and for one
    /// that does not decode (compaction copies it as it is; reading it reports it). The
    /// terms stay the record's: an in-place migration changes no indexed value and no
    /// index number.
    func rewrittenInCurrentLayout(_ record: Record) -> Record? {
        guard hasOlderLayouts, record.key.rawValue & ObjectID.serialMask != 0,
              let name = entityByTag[Self.tag(of: record.key)], let layout = shapes[name]?.layout,
              let object = try? ObjectCodec.decode(record),
              layout.layout(named: object.layoutID) != layout.layoutID,
              let forwarded = try? forward(object),
              let encoded = try? ObjectCodec.encode(forwarded.fields, layout: layout, blobBytes: { _ in [] }) else { return nil }
        return Record(key: record.key, sequence: record.sequence, value: encoded.value, blobs: encoded.blobs, terms: record.terms)
    }

    /// Decodes an object record into its entity's current layout.
    func decode(_ record: Record) throws -> StoredObject {
        try record.value.withUnsafeBytes { bytes in
            try record.blobs.withUnsafeBufferPointer { blobs in
                try decode(RecordView(key: record.key, sequence: record.sequence, value: bytes, blobs: blobs))
            }
        }
    }

    /// `forward(_:)` in a store without older layouts: the record must be of layout 1.
    static func checkOnlyLayout(_ object: StoredObject) throws {
        if let id = object.layoutID, id != 1 {
            throw StrataError(.corrupt, "object record \(object.key) names layout \(id); its store has only layout 1")
        }
    }

    /// Decodes an object record read in place into its entity's current layout.
    func decode(_ view: RecordView) throws -> StoredObject {
        try Self.decode(view, shape: shapeByTag[Self.tag(of: view.key)])
    }

    /// Decodes an object record read in place into the current layout of `shape`,
    /// its entity's (nil when the key's tag names no entity: then it must be of
    /// layout 1). Decoded with room for the current layout's fields, so that a record
    /// of an older layout is read forward in the same array.
    @inline(__always)
    static func decode(_ view: RecordView, shape: EntityShape?) throws -> StoredObject {
        guard let shape else {
            let object = try ObjectCodec.decode(view)
            try checkOnlyLayout(object)
            return object
        }
        var object = try ObjectCodec.decode(view, capacity: shape.fieldCount)
        try shape.read(&object)
        return object
    }

    /// The edge relations of a model, untagged: one per stored to-many, a many-to-many
    /// pair counted once under its primary side (the smaller of `Entity.relationship`
    /// of the two declaring entities, bytewise).
    static func edgeRelations(of model: ObjectModel) -> [EdgeRelation] {
        var relations: [String: EdgeRelation] = [:]
        for entity in model.entities {
            for relationship in entity.relationships where isStoredList(relationship, model: model) {
                let declaring = declaringEntity(of: relationship.name, in: entity, model: model)
                guard declaring == entity.name else { continue }
                let inverse = relationship.inverseName.flatMap { model.entity(named: relationship.destinationEntityName)?.relationshipsByName[$0] }
                var primary = (entity: declaring, relationship: relationship, inverse: inverse)
                if let inverse, inverse.isToMany, let destination = model.entity(named: relationship.destinationEntityName) {
                    let inverseDeclaring = declaringEntity(of: inverse.name, in: destination, model: model)
                    let mine = "\(declaring).\(relationship.name)", theirs = "\(inverseDeclaring).\(inverse.name)"
                    if Array(theirs.utf8).lexicographicallyPrecedes(Array(mine.utf8)) {
                        primary = (inverseDeclaring, inverse, relationship)
                    }
                }
                let name = "\(primary.entity).\(primary.relationship.name)"
                guard relations[name] == nil else { continue }
                relations[name] = EdgeRelation(
                    tag: 0, ownerEntity: primary.entity, relationship: primary.relationship.name,
                    memberEntity: primary.relationship.destinationEntityName, inverseName: primary.inverse?.name,
                    ownerOrdered: primary.relationship.isOrdered, memberOrdered: primary.inverse.map { $0.isToMany && $0.isOrdered } ?? false)
            }
        }
        return relations.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.compactMap { relations[$0] }
    }

    /// The edge relation and side a to-many of `entity` reads, nil when it is not
    /// stored as edges (a to-one, or a to-many derived from its to-one inverse).
    func edgeSide(_ entity: String, _ relationship: String) -> EdgeSide? {
        edgeSides["\(entity).\(relationship)"]
    }

    /// Every tag the store allocates keys under: entities' and edge relations'.
    var allTags: [UInt16] { Array(tags.values) + Array(edgeTags.values) }

    /// A to-many is a stored list when no to-one inverse can derive it: it is ordered,
    /// its inverse is to-many too, or it has none.
    static func isStoredList(_ relationship: RelationshipDescription, model: ObjectModel) -> Bool {
        guard relationship.isToMany else { return false }
        if relationship.isOrdered { return true }
        guard let inverseName = relationship.inverseName,
              let inverse = model.entity(named: relationship.destinationEntityName)?.relationshipsByName[inverseName] else { return true }
        return inverse.isToMany
    }

    /// The root-most entity in `entity`'s ancestry that has the property.
    static func declaringEntity(of property: String, in entity: EntityDescription, model: ObjectModel) -> String {
        var declaring = entity.name
        var current = entity
        while let parentName = current.parentName, let parent = model.entity(named: parentName) {
            if parent.property(named: property) != nil { declaring = parent.name }
            current = parent
        }
        return declaring
    }

    /// Index numbers: the declaring entity's tag in the high 16 bits, the property's
    /// position among the declaring entity's properties below.
    static func termIndex(tag: UInt16, property: String, in declaring: String, model: ObjectModel) -> UInt32 {
        let position = model.entity(named: declaring)?.properties.firstIndex { $0.name == property } ?? 0
        return UInt32(tag) << 16 | UInt32(position & 0xFFFF)
    }

    func layout(_ entity: String) throws -> EntityLayout {
        guard let layout = shapes[entity]?.layout else {
            throw StrataError(.unknownKeyPath, "the model has no entity '\(entity)'", context: ["entity": entity])
        }
        return layout
    }

    func shape(_ entity: String) throws -> EntityShape {
        guard let shape = shapes[entity] else {
            throw StrataError(.unknownKeyPath, "the model has no entity '\(entity)'", context: ["entity": entity])
        }
        return shape
    }

    func entityName(of key: RecordKey) -> String? { entityByTag[Self.tag(of: key)] }

    /// The tags as stored in the manifest: JSON `{"Entity": tag}`.
    func encodedTags() throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: tags.mapValues { Int($0) }, options: [.sortedKeys]))
    }

    /// The edge tags as stored in the manifest: JSON `{"Entity.relationship": tag}`.
    func encodedEdgeTags() throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: edgeTags.mapValues { Int($0) }, options: [.sortedKeys]))
    }

    static func decodeTags(_ bytes: [UInt8]) throws -> [String: UInt16] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Int] else {
            throw StrataError(.corrupt, "the store's schema metadata does not parse")
        }
        var tags: [String: UInt16] = [:]
        for (name, tag) in object {
            guard let small = UInt16(exactly: tag), small > 0 else { throw StrataError(.corrupt, "entity tag \(tag) for \(name) is out of range") }
            tags[name] = small
        }
        return tags
    }
}
