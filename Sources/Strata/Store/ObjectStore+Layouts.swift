import Foundation
import StrataLog

extension ObjectStore {
    /// Writes every object record of an older layout again in its entity's current
    /// layout, then drops the layouts no record uses any more from the store's layout
    /// table (docs/FORMAT.md §11.4). Older layouts come from lightweight migrations run
    /// in place; they are read forward as they are, so this is housekeeping, not a
    /// repair: it makes records read without a forward map, drops the values removed
    /// attributes left in them, and keeps the table short.
    ///
    /// Streams each entity that has older layouts in batches of `batchSize` records,
    /// holding the store's save gate throughout (saves of this process wait; another
    /// process cannot write while this one holds the store). Records already current
    /// are not touched. The index numbers of dropped fields stay retired.
    ///
    /// - Returns: how many records were written again.
    /// - Throws: `.corrupt` for a record that does not decode; what a commit throws.
    @discardableResult
    public func rewriteOlderLayouts(batchSize: Int = 1024) throws -> Int {
        guard schema.hasOlderLayouts else { return 0 }
        let gate = SaveGate.lock(for: self)
        gate.lock()
        defer { gate.unlock() }
        var rewritten = 0
        var table = schema.layoutTable
        var retired = Set(table.retiredTermIndexes ?? [])
        for (name, shape) in schema.shapes.sorted(by: { $0.value.layout.tag < $1.value.layout.tag }) {
            let layout = shape.layout
            guard var entity = table.entities[name], entity.layouts.count > 1, let current = entity.current else { continue }
            try records.scan(StoreSchema.range(tag: layout.tag), batchSize: max(1, batchSize)) { batch in
                var writes = WriteBatch()
                for record in batch {
                    let object = try ObjectCodec.decode(record)
                    guard layout.layout(named: object.layoutID) != layout.layoutID else { continue }
                    let forwarded = try schema.forward(object)
                    let encoded = try ObjectCodec.encode(forwarded.fields, layout: layout, blobBytes: { try self.records.readBlob($0) })
                    writes.put(record.key, value: encoded.value, blobs: encoded.blobs, terms: encoded.terms)
                    rewritten += 1
                }
                if !writes.isEmpty { try records.commit(writes) }
            }
            let kept = Set(current.fields.compactMap(\.termIndex))
            for old in entity.layouts.dropLast() {
                for index in old.fields.compactMap(\.termIndex) where !kept.contains(index) { retired.insert(index) }
            }
            entity.layouts = [current]
            table.entities[name] = entity
        }
        table.retiredTermIndexes = retired.sorted()
        var metadata = records.metadata
        metadata[LayoutTable.metadataKey] = try table.encoded()
        try records.setMetadata(MetadataDigest.sealed(metadata))
        options.logger.info("older record layouts rewritten and dropped", metadata: ["path": "\(path)", "records": "\(rewritten)"])
        return rewritten
    }
}
