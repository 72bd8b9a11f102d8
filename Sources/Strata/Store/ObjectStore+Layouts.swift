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
        return try withSaveGate {
            var rewritten = 0
            for (name, shape) in schema.shapes.sorted(by: { $0.value.layout.tag < $1.value.layout.tag }) {
                let layout = shape.layout
                guard let entity = schema.layoutTable.entities[name], entity.layouts.count > 1 else { continue }
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
            }
            try writeTableWithoutOlderLayouts()
            options.logger.info("older record layouts rewritten and dropped", metadata: ["path": "\(path)", "records": "\(rewritten)"])
            return rewritten
        }
    }

    /// The store's layout table with each entity's current layout only, written in
    /// place of the stored one (and without a rewrite mark): for when no record of an
    /// older layout is left. The index numbers of dropped fields stay retired.
    private func writeTableWithoutOlderLayouts() throws {
        var table = schema.layoutTable
        var retired = Set(table.retiredTermIndexes ?? [])
        for (name, var entity) in table.entities where entity.layouts.count > 1 {
            guard let current = entity.current else { continue }
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
        metadata[LayoutTable.rewriteMarkKey] = nil
        try records.setMetadata(MetadataDigest.sealed(metadata))
        (records as? LogStore)?.rewriteSegments(below: nil)
    }

    /// Starts the background rewrite of records of older layouts (FORMAT.md §11.4):
    /// compaction rewrites every segment below the store's rewrite mark — the first
    /// segment id made after the newest layout, at or above which every record is
    /// current — whatever its garbage. A store without a mark gets one now (its next
    /// segment id), kept in its metadata when it is writable. If no segment below the
    /// mark holds a record any more (a compaction finished the work, and the process
    /// stopped before it dropped the layouts), the older layouts are dropped now.
    func startLayoutRewrite(_ log: LogStore) throws {
        guard schema.layoutTable.holdsOlderLayouts else { return }
        let mark: UInt32
        if let stored = records.metadata[LayoutTable.rewriteMarkKey] {
            guard stored.count == 4 else {
                throw StrataError(.corrupt, "the layout rewrite mark is \(stored.count) bytes, not 4", path: path, context: ["key": LayoutTable.rewriteMarkKey])
            }
            mark = stored.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
        } else {
            mark = log.nextSegmentID
            try storeLayoutRewriteMark(mark)
        }
        log.rewriteSegments(below: mark)
        try dropRewrittenLayouts()
    }

    /// Removes the store's rewrite mark, when it has one and is writable: compaction
    /// that leaves older-layout records as they are (``StoreOptions/compactionRewritesOlderLayouts``
    /// off) writes them into segments above the mark, where a mark promises none lie
    /// (FORMAT.md §11.4). The next open that rewrites sets a new mark above them.
    func clearLayoutRewriteMark() throws {
        guard records.metadata[LayoutTable.rewriteMarkKey] != nil else { return }
        try storeLayoutRewriteMark(nil)
    }

    /// Writes `mark` as the store's rewrite mark (nil removes it), when the store is
    /// writable; a read-only open leaves the metadata as it found it.
    private func storeLayoutRewriteMark(_ mark: UInt32?) throws {
        guard records.writeRefusal == nil else { return }
        var metadata = records.metadata
        metadata[LayoutTable.rewriteMarkKey] = mark.map { mark in withUnsafeBytes(of: mark.littleEndian) { Array($0) } }
        try records.setMetadata(MetadataDigest.sealed(metadata))
    }

    /// Whether records of an older layout wait for a compaction to write them in the
    /// current one: the store's table holds older layouts and compaction rewrites them
    /// (a rewrite mark is set). A service's policy compacts for them whatever the
    /// store's garbage; the compaction drops the layouts once it is done.
    package var awaitsLayoutRewrite: Bool {
        schema.layoutTable.holdsOlderLayouts && (records as? LogStore)?.segmentsRewrittenBelow != nil
    }

    /// Drops the older layouts from the store's layout table once no segment below the
    /// rewrite mark holds a record: every record is then in its entity's current
    /// layout. Runs after each compaction; a no-op otherwise.
    ///
    /// - Returns: whether the layouts were dropped.
    @discardableResult
    package func dropRewrittenLayouts() throws -> Bool {
        guard schema.layoutTable.holdsOlderLayouts, records.writeRefusal == nil, let log = records as? LogStore,
              let mark = log.segmentsRewrittenBelow, !log.holdsRecords(inSegmentsBelow: mark) else { return false }
        return try withSaveGate {
            guard log.segmentsRewrittenBelow != nil else { return false }
            try writeTableWithoutOlderLayouts()
            options.logger.info("older record layouts dropped: compaction rewrote every record in its current layout", metadata: ["path": "\(path)"])
            return true
        }
    }
}
