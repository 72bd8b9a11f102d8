import Foundation
import Logging
import StrataLog

/// What a store's metadata says about the model its records are written under.
struct RecordedModelHash: Sendable, Equatable {
    /// The hash as the metadata holds it.
    var recorded: String
    /// The same model's hash under this release's canonical description: `recorded`
    /// itself, or for a store written under version 1 of the description the version 2
    /// hash of the model the store recorded (docs/MODEL.md, "Stores written under
    /// version 1").
    var current: String
    /// Whether `recorded` is a version 1 hash.
    var isLegacy: Bool { recorded != current }

    /// Reads the store's hash; nil for a store that records none (a new one).
    ///
    /// A version 1 hash left indexes and uniqueness out, so by itself it cannot tell
    /// whether the store's indexes are the model's. The store's recorded model
    /// (`strata.model`) can: when its version 1 hash is the recorded one, its version 2
    /// hash — indexes and constraints included — is what the records were written
    /// under. A recorded hash that matches neither is taken as it is (it then matches
    /// no model, and opening fails with `incompatibleModel`).
    init?(metadata: [String: [UInt8]], given model: ObjectModel? = nil) {
        guard let bytes = metadata[StoreSchema.modelHashKey] else { return nil }
        let recorded = String(decoding: bytes, as: UTF8.self)
        self.recorded = recorded
        current = recorded
        // The common case costs no parse of the recorded model.
        if let model, model.versionHash == recorded { return }
        guard let json = metadata[StoreSchema.modelKey],
              let stored = try? ObjectModel(jsonData: Data(json)),
              stored.versionHash != recorded, stored.legacyVersionHash == recorded else { return }
        current = stored.versionHash
    }
}

extension ObjectStore {
    /// Whether the store's records carry this release's index terms (strings in
    /// canonical form, composites indexed): recorded as `strata.terms` = 2 in the
    /// metadata by every store this release creates or migrates. Without it, an index
    /// answers only what the older terms answer exactly (docs/MODEL.md, "Exact
    /// uniqueness and index lookups").
    static func hasExactTerms(_ metadata: [String: [UInt8]]) -> Bool {
        metadata[StoreSchema.termsKey] == StoreSchema.exactTermsVersion
    }

    /// Whether the external binaries of the store's records carry index terms:
    /// `strata.blobTerms` in the metadata (written when a store is created and by every
    /// migration that rewrites one), or a model with no indexed or unique attribute that
    /// may be stored in the blob area, whose records then miss no term. Otherwise
    /// uniqueness checks and index lookups on such an attribute scan instead.
    static func hasBlobTerms(_ metadata: [String: [UInt8]], model: ObjectModel) -> Bool {
        if metadata[StoreSchema.blobTermsKey] == StoreSchema.blobTermsVersion { return true }
        return !model.entities.contains { entity in
            entity.declaredProperties.contains { property in
                guard case .attribute(let attribute) = property else { return false }
                return attribute.allowsExternalStorage && !attribute.isTransient && (attribute.isIndexed || attribute.isUnique)
            } || entity.uniquenessConstraints.contains { constraint in
                constraint.contains { name in entity.attributesByName[name]?.allowsExternalStorage ?? false }
            }
        }
    }

    /// Whether a model's index terms are the same under the old and the new encoding,
    /// so that a store written under version 1 with this model may be marked exact
    /// without rewriting a record: no indexed or unique string or composite attribute.
    static func termsUnchangedByExactEncoding(_ model: ObjectModel) -> Bool {
        for entity in model.entities {
            if !entity.uniquenessConstraints.isEmpty { return false }
            for case .attribute(let attribute) in entity.declaredProperties
            where !attribute.isTransient && (attribute.isIndexed || attribute.isUnique) {
                if attribute.type == .string || attribute.type == .composite { return false }
            }
        }
        return true
    }

    /// Brings a version 1 store's metadata to this release when it opens with its own
    /// model: the hash under version 2, and the exact-terms mark when its terms are
    /// already exact. A store opened read-only keeps its metadata; it opens all the same.
    static func upgradeLegacyMetadata(_ model: ObjectModel, records: any RecordStore, path: String, logger: Logger) {
        var metadata = records.metadata
        metadata[StoreSchema.modelHashKey] = Array(model.versionHash.utf8)
        if termsUnchangedByExactEncoding(model) { metadata[StoreSchema.termsKey] = StoreSchema.exactTermsVersion }
        do {
            try records.setMetadata(MetadataDigest.sealed(metadata))
        } catch {
            logger.debug("store metadata left at the version 1 hash", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }
}
