import Foundation
import StrataLog

/// Every record layout a store has written, per entity (docs/FORMAT.md §11.4), kept in
/// the manifest's metadata under `strata.layouts`. A record says which layout wrote it;
/// a record of an older layout is read forward into the current one by field identity
/// (``StoreSchema/EntityLayout/forward``), which is what lets a lightweight migration
/// change the model without rewriting a record (InPlaceMigration).
///
/// A store without the key (created before layouts, or never migrated in place) has
/// one layout per entity, derived from its model at every open (``derived(from:)``):
/// layout 1, fields 1…n in layout order. Its version-1 records, which carry no layout
/// id, are of its entities' first layout.
struct LayoutTable: Sendable, Equatable, Codable {
    /// One field of a layout. `id` is the field's identity: it survives renames and
    /// is never given to another field of the entity.
    struct Field: Sendable, Equatable, Codable {
        var id: UInt32
        var name: String
        /// "attribute", "toOne" or "toManyList" (``StoreSchema/Field/Kind``).
        var kind: String
        var type: AttributeType?
        var external: Bool?
        var termIndex: UInt32?
        /// What a record of a layout without this field reads for it: the attribute's
        /// default when the field was added (ObjectCodec's value encoding, base64), none
        /// for null.
        var fill: String?
    }

    struct Layout: Sendable, Equatable, Codable {
        var id: UInt32
        var fields: [Field]
    }

    struct Entity: Sendable, Equatable, Codable {
        var tag: UInt16
        /// Oldest first; the last is the one records are written with now.
        var layouts: [Layout]
        var nextFieldID: UInt32

        var current: Layout? { layouts.last }
    }

    /// The model's entities by name.
    var entities: [String: Entity]
    /// Tags that name no entity of the model any more but may still have keys in the
    /// store: never handed out again.
    var retiredTags: [UInt16] = []
    /// Index numbers of fields of dropped layouts (``ObjectStore/rewriteOlderLayouts()``):
    /// records may still carry their terms, so no new field takes one. Absent in tables
    /// written before layouts were dropped.
    var retiredTermIndexes: [UInt32]? = nil

    static let metadataKey = "strata.layouts"
    /// The rewrite mark (FORMAT.md §11.4): a `u32` segment id, little-endian. Segments
    /// below it may hold records of older layouts; none at or above it does.
    static let rewriteMarkKey = "strata.layouts.rewriteBelow"

    /// Whether an entity has a layout besides its current one: records of it may remain.
    var holdsOlderLayouts: Bool { entities.values.contains { $0.layouts.count > 1 } }

    /// Every index number a field of any layout has used: a new field never takes one,
    /// so terms left by a removed field can never answer for it.
    var usedTermIndexes: Set<UInt32> {
        var used = Set(retiredTermIndexes ?? [])
        for entity in entities.values {
            for layout in entity.layouts { for field in layout.fields { if let index = field.termIndex { used.insert(index) } } }
        }
        return used
    }

    /// The table a store without `strata.layouts` has: one layout per entity, the
    /// layout `schema` computes from the model.
    static func derived(from layouts: [StoreSchema.EntityLayout]) -> LayoutTable {
        var entities: [String: Entity] = [:]
        for layout in layouts {
            let fields = layout.fields.enumerated().map { number, field in
                Field(id: UInt32(number + 1), name: field.name, kind: field.kind.tableName,
                      type: field.kind.attributeType, external: field.kind.isExternal ? true : nil, termIndex: field.termIndex)
            }
            entities[layout.name] = Entity(tag: layout.tag, layouts: [Layout(id: 1, fields: fields)], nextFieldID: UInt32(fields.count + 1))
        }
        return LayoutTable(entities: entities)
    }

    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(self))
    }

    static func decode(_ bytes: [UInt8]) throws -> LayoutTable {
        let table: LayoutTable
        do {
            table = try JSONDecoder().decode(LayoutTable.self, from: Data(bytes))
        } catch {
            throw StrataError(.corrupt, "the store's layout table (\(metadataKey)) does not parse: \(error)")
        }
        for (name, entity) in table.entities {
            guard !entity.layouts.isEmpty else { throw StrataError(.corrupt, "the layout table lists no layout for \(name)", context: ["entity": name]) }
            var ids = Set<UInt32>()
            for layout in entity.layouts {
                guard layout.id > 0, ids.insert(layout.id).inserted else {
                    throw StrataError(.corrupt, "the layout table repeats or zeroes layout \(layout.id) of \(name)", context: ["entity": name])
                }
                var fieldIDs = Set<UInt32>()
                for field in layout.fields {
                    guard field.id > 0, field.id < entity.nextFieldID, fieldIDs.insert(field.id).inserted,
                          StoreSchema.Field.Kind.fromTable(field) != nil else {
                        throw StrataError(.corrupt, "the layout table has a bad field \(field.name) in layout \(layout.id) of \(name)", context: ["entity": name])
                    }
                }
            }
        }
        return table
    }

    /// The value a `fill` string holds; a fill that is not one value's encoding is
    /// damage (read as null, every record of an older layout would lose the default).
    static func fillValue(_ fill: String?) throws -> FieldValue {
        guard let fill else { return .null }
        guard let data = Data(base64Encoded: fill) else {
            throw StrataError(.corrupt, "the layout table holds a fill that is not base64", context: ["key": metadataKey])
        }
        var r = FieldReader(bytes: Array(data))
        let value = try ObjectCodec.decodeValue(&r)
        guard r.position == r.bytes.count else { throw StrataError(.corrupt, "the layout table holds a fill with bytes after its value", context: ["key": metadataKey]) }
        return value.isNull ? .null : .value(value)
    }

    static func fillString(_ value: Value?) -> String? {
        guard let value, !value.isNull else { return nil }
        var w = FieldWriter()
        ObjectCodec.encode(value, into: &w)
        return Data(w.bytes).base64EncodedString()
    }
}

extension StoreSchema.Field.Kind {
    var tableName: String {
        switch self {
        case .attribute: "attribute"
        case .toOne: "toOne"
        case .toManyList: "toManyList"
        }
    }

    var attributeType: AttributeType? {
        if case .attribute(let type, _) = self { return type }
        return nil
    }

    var isExternal: Bool {
        if case .attribute(_, let external) = self { return external }
        return false
    }

    static func fromTable(_ field: LayoutTable.Field) -> Self? {
        switch field.kind {
        case "attribute": field.type.map { .attribute($0, external: field.external ?? false) }
        case "toOne": .toOne
        case "toManyList": .toManyList
        default: nil
        }
    }
}
