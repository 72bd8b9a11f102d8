import StrataLog

/// A digest of the object layer's metadata (`strata.*` keys: the model, its hash, the
/// entity and edge tags, the layout table, the term markers), kept under
/// `strata.digest` and written with them in every metadata write
/// (docs/FORMAT.md §11.1).
///
/// The manifest's CRC protects its bytes against a disk, not against a tool that
/// edits a tag or a layout's field id and recomputes it; nothing else in the store
/// could tell such an edit from the truth, and every record would then read under the
/// wrong entity or layout. The digest can: open refuses metadata that does not match
/// it. A store whose metadata holds no digest (written by a release without it)
/// opens without that check.
enum MetadataDigest {
    static let key = "strata.digest"

    /// `metadata` with its digest set.
    static func sealed(_ metadata: [String: [UInt8]]) -> [String: [UInt8]] {
        var sealed = metadata
        sealed[key] = Array(digest(of: metadata).utf8)
        return sealed
    }

    /// SHA-256 (hex) over the `strata.*` keys but the digest, sorted, each as
    /// `keyLength:u32 key valueLength:u32 value`.
    static func digest(of metadata: [String: [UInt8]]) -> String {
        var message: [UInt8] = []
        for name in metadata.keys.filter({ $0.hasPrefix("strata.") && $0 != key }).sorted() {
            let value = metadata[name] ?? []
            append(UInt32(name.utf8.count), to: &message)
            message += Array(name.utf8)
            append(UInt32(value.count), to: &message)
            message += value
        }
        return SHA256.hexDigest(message)
    }

    /// Throws `.corrupt` when `metadata` carries a digest that its keys do not match.
    static func check(_ metadata: [String: [UInt8]], path: String) throws {
        guard let recorded = metadata[key] else { return }
        guard String(decoding: recorded, as: UTF8.self) == digest(of: metadata) else {
            throw StrataError(.corrupt, "the store's object-layer metadata (model, tags, layouts) does not match its digest: it was edited outside Strata",
                              path: path, context: ["key": key])
        }
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
    }
}
