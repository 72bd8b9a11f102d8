import Foundation
import Logging
import StrataLog
import Synchronization

extension ObjectStore {
    /// A store over records that are already open (a migration's source and staging
    /// stores), with a schema decided by the caller. It does not own the records'
    /// lifetime checks: the caller opened them and closes them.
    /// `exactTerms` nil reads the mark from the records' metadata; a migration's
    /// staging store writes every record with exact terms before it is marked.
    convenience init(records: any RecordStore, model: ObjectModel, schema: StoreSchema, serials: [UInt16: UInt64], options: StoreOptions,
                     exactTerms: Bool? = nil) {
        self.init(uncheckedRecords: records, model: model, schema: schema, serials: serials, options: options, exactTerms: exactTerms)
    }

    /// The model the store was created with, as its metadata records it.
    static func storedModel(in records: any RecordStore) throws -> ObjectModel? {
        guard let json = records.metadata[StoreSchema.modelKey] else { return nil }
        return try ObjectModel(jsonData: Data(json))
    }

    /// The entity tags the store's metadata records.
    static func storedTags(in records: any RecordStore) throws -> [String: UInt16] {
        try records.metadata[StoreSchema.metadataKey].map(StoreSchema.decodeTags) ?? [:]
    }

    /// The schema a store's metadata records for `model` (the model it was written
    /// with): entity tags and edge tags. A store written before edges has no edge
    /// tags: its records may hold to-many lists, and its edge tags are derived the
    /// same way at every open, from the model and the entity tags, without writing
    /// anything — a read-only open stays read-only (docs/FORMAT.md §11.3).
    ///
    /// Fields and index numbers follow the property order of the model the store was
    /// written with (``ObjectModel/withPropertyOrder(of:)``), whatever order `model`
    /// declares them in: the hash does not cover the order.
    ///
    /// A store migrated in place carries its layout table (`strata.layouts`,
    /// docs/FORMAT.md §11.4); `metadata` replaces the store's own when a migration has
    /// changed it and not written it yet.
    static func storedSchema(in records: any RecordStore, model: ObjectModel, metadata: [String: [UInt8]]? = nil) throws -> StoreSchema {
        // Metadata read from the store is held to its digest; what a migration passes
        // is its own, in the making.
        if metadata == nil { try MetadataDigest.check(records.metadata, path: (records as? LogStore)?.path ?? "") }
        let metadata = metadata ?? records.metadata
        let edges = try metadata[StoreSchema.edgesMetadataKey].map(StoreSchema.decodeTags)
        var model = model
        if let json = metadata[StoreSchema.modelKey], let stored = try? ObjectModel(jsonData: Data(json)), stored.versionHash == model.versionHash {
            model = try model.withPropertyOrder(of: stored)
        }
        let tags = try metadata[StoreSchema.metadataKey].map(StoreSchema.decodeTags) ?? [:]
        let layouts = try metadata[LayoutTable.metadataKey].map(LayoutTable.decode)
        return try StoreSchema(model: model, existing: tags, firstNewTag: layouts.map { ($0.retiredTags.max() ?? 0) + 1 } ?? 1,
                               existingEdges: edges ?? [:], mayHaveLegacyLists: edges == nil, layoutTable: layouts)
    }

    /// Writes the model, its hash and the tags into a store's metadata.
    static func recordModel(_ model: ObjectModel, schema: StoreSchema, in records: any RecordStore) throws {
        var metadata = records.metadata
        metadata[StoreSchema.modelHashKey] = Array(model.versionHash.utf8)
        metadata[StoreSchema.metadataKey] = try schema.encodedTags()
        metadata[StoreSchema.edgesMetadataKey] = try schema.encodedEdgeTags()
        metadata[StoreSchema.modelKey] = Array(try model.jsonData())
        // A migration writes every record anew, with this release's terms.
        metadata[StoreSchema.termsKey] = StoreSchema.exactTermsVersion
        metadata[StoreSchema.blobTermsKey] = StoreSchema.blobTermsVersion
        try records.setMetadata(MetadataDigest.sealed(metadata))
    }

    /// A snapshot of the next serial of every entity.
    var serialSnapshot: [UInt16: UInt64] { serials.withLock { $0 } }
}
