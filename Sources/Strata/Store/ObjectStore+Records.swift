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

    /// Writes the model, its hash and the tags into a store's metadata.
    static func recordModel(_ model: ObjectModel, schema: StoreSchema, in records: any RecordStore) throws {
        var metadata = records.metadata
        metadata[StoreSchema.modelHashKey] = Array(model.versionHash.utf8)
        metadata[StoreSchema.metadataKey] = try schema.encodedTags()
        metadata[StoreSchema.modelKey] = Array(try model.jsonData())
        // A migration writes every record anew, with this release's terms.
        metadata[StoreSchema.termsKey] = StoreSchema.exactTermsVersion
        try records.setMetadata(metadata)
    }

    /// A snapshot of the next serial of every entity.
    var serialSnapshot: [UInt16: UInt64] { serials.withLock { $0 } }
}
