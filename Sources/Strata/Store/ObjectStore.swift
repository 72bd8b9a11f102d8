import Foundation
import Logging
import StrataLog
import Synchronization

/// A store of objects: a directory holding records of a model's entities.
///
/// `ObjectStore` is `Sendable`: share one across tasks. It has one writer at a time and
/// any number of readers; each task works through its own `ObjectContext`.
///
/// ```swift
/// let store = try ObjectStore(at: "/var/lib/app/Employees.strata", model: model)
/// let context = store.newContext()
/// let ada = try context.insert("Employee")
/// try ada.setValue("Ada", forKey: "name")
/// try context.save()
/// ```
///
/// Opening a store with a model whose version hash differs from the one the store was
/// created with throws `StrataError.Code.incompatibleModel`, naming both hashes.
public final class ObjectStore: Sendable {
    /// The model the store is open with.
    public let model: ObjectModel
    /// The store's directory (empty for an in-memory store).
    public let path: String
    /// The options the store was opened with.
    public let options: StoreOptions
    /// The storage behind the store (its type's seam).
    package let records: any RecordStore
    let schema: StoreSchema
    /// The store's UUID as hex: the host part of object URIs.
    public let identifier: String
    let serials: Locked<[UInt16: UInt64]>
    /// Serials the store reserved for this process and not yet given out, per tag,
    /// when other processes write it too (``sharedSerials(tag:count:)``).
    let serialBlocks = Locked<[UInt16: Range<UInt64>]>([:])
    /// Whether the records' index terms are exact (``hasExactTerms(_:)``): read at open.
    let exactTerms: Bool
    /// Whether external binaries carry index terms (``hasBlobTerms(_:model:)``): read at open.
    let blobTerms: Bool
    let observers = Locked<[UUID: ChangeObserver]>([:])
    /// Wakes history feeds as commits land (``changes(after:)``).
    let commitSignal = CommitSignal()
    /// Whether the records report other processes' commits to `commitSignal` yet.
    let listeningForOtherWriters = Locked(false)
    /// The async API's threads and the count of its work in flight.
    let lanes: StoreLanes
    /// Where operations are reported (``StoreInstrument``).
    let instrumentSlot: Locked<(any StoreInstrument)?>
    /// Sort key paths its fetches already checked.
    let checkedSortKeys = CheckedSortKeys()
    var logger: Logger { options.logger }

    /// Creates or opens the store at `path` for `model`.
    ///
    /// - Throws: `.incompatibleModel` when the store was created with another model
    ///   (its `context` holds `storeHash` and `modelHash`); `.invalidModel` naming
    ///   `Entity.attribute` and the transformer when a `transformable` attribute's value
    ///   transformer is not registered; `.storeLocked` when another
    ///   process writes the store; `.corrupt` naming a damaged file and offset.
    public convenience init(at path: String, model: ObjectModel, options: StoreOptions = StoreOptions()) throws {
        if options.deleteStoreIfMigrationNeeded && options.migration.isRequested {
            throw StrataError(.invalidArgument, "deleteStoreIfMigrationNeeded and a migration are both set: choose whether an older store is migrated or deleted", path: path)
        }
        // Before anything is opened: a missing transformer must not cost a migration.
        if options.requiresValueTransformers { try model.checkValueTransformers(path: path) }
        let records: any RecordStore
        if let open = options.storeType.opener {
            records = try open(path, options)
        } else if options.storeType == .inMemory {
            records = try LogStore.open(at: "/memory", options: options.log, fileSystem: InMemoryFileSystem(), logger: options.logger)
        } else {
            records = try LogStore.open(at: path, options: options.log, fileSystem: options.fileSystem ?? POSIXFileSystem(), logger: options.logger)
        }
        try self.init(opened: records, path: options.storeType == .inMemory ? "" : Self.shownLocation(path), model: model, options: options)
    }

    /// A store's location as errors, logs and output name it: a server's address
    /// without its password.
    package static func shownLocation(_ location: String) -> String {
        guard var url = URLComponents(string: location), url.password != nil else { return location }
        url.password = nil
        return url.string ?? ""
    }

    /// Opens an object store over records of any store type (`RecordStore`), opened
    /// by hand (StrataPostgres's, the tests'). The store takes the records over and
    /// closes them when it closes (or when this throws).
    ///
    /// - Throws: as ``init(at:model:options:)``.
    package convenience init(records: any RecordStore, model: ObjectModel, options: StoreOptions = StoreOptions()) throws {
        if options.deleteStoreIfMigrationNeeded && options.migration.isRequested {
            try? records.close()
            throw StrataError(.invalidArgument, "deleteStoreIfMigrationNeeded and a migration are both set: choose whether an older store is migrated or deleted")
        }
        do {
            if options.requiresValueTransformers { try model.checkValueTransformers(path: "") }
        } catch {
            try? records.close()
            throw error
        }
        try self.init(opened: records, path: (records as? LogStore)?.path ?? "", model: model, options: options)
    }

    private init(opened opening: any RecordStore, path: String, model: ObjectModel, options: StoreOptions) throws {
        self.lanes = StoreLanes(readerThreads: options.readerThreads)
        self.instrumentSlot = Locked(options.instrument)
        var migrated: Duration?
        var records = opening
        do {
            let stored = RecordedModelHash(metadata: records.metadata, given: model)
            if let stored, stored.current != model.versionHash, options.deleteStoreIfMigrationNeeded {
                records = try Self.replaceWithEmptyStore(records, path: path, storedHash: stored.recorded, model: model, options: options)
            } else if let stored, stored.current != model.versionHash, options.migration.isRequested {
                let started = ContinuousClock.now
                do {
                    if records.hasOtherWriters {
                        // Other processes may open it with this model too: under the store's
                        // lock, the metadata read again says whether one of them migrated it.
                        let opened = records
                        records = try opened.exclusively {
                            try opened.reloadMetadata()
                            guard let again = RecordedModelHash(metadata: opened.metadata, given: model), again.current != model.versionHash else { return opened }
                            return try StoreMigrator.migrate(opened, path: path, to: model, options: options)
                        }
                    } else {
                        records = try StoreMigrator.migrate(records, path: path, to: model, options: options)
                    }
                } catch {
                    // A failed migration is an operation too: the service's error counter
                    // is where an operator looks when a deploy does not come up.
                    options.instrument?.operationFinished(.migrate, duration: ContinuousClock.now - started, error: error)
                    throw error
                }
                migrated = ContinuousClock.now - started
            }
            let schema = try Self.checkModel(model, records: records, path: path, logger: options.logger)
            self.schema = schema
            self.exactTerms = Self.hasExactTerms(records.metadata)
            self.blobTerms = Self.hasBlobTerms(records.metadata, model: model)
            self.serials = Locked(try Self.loadSerials(schema: schema, records: records))
        } catch {
            try? records.close()
            throw error
        }
        self.model = model
        self.path = path
        self.options = options
        self.records = records
        self.identifier = records.storeID.map { String(format: "%02x", $0) }.joined()
        // Compaction writes records of older layouts in the current one, so that they
        // go as the store is compacted (FORMAT.md §11.4).
        if schema.hasOlderLayouts, let log = records as? LogStore {
            do {
                if options.compactionRewritesOlderLayouts {
                    let schema = self.schema
                    log.setRecordRewriter { schema.rewrittenInCurrentLayout($0) }
                    try startLayoutRewrite(log)
                } else {
                    try clearLayoutRewriteMark()
                }
            } catch {
                try? records.close()
                throw error
            }
        }
        // Compaction keeps the versions that reads as of a token history still answers
        // for need (FORMAT.md §8, §11.6): those newer than the horizon's token.
        if let log = records as? LogStore, !options.log.readOnly {
            log.setVersionRetention { log in
                // A state record that cannot be read stops the compaction: taken for
                // "no history", it would drop the versions the tokens still need.
                guard let value = try log.get(HistoryLog.stateKey)?.value else { return nil }
                let state = try HistoryLog.State.decode(value)
                guard state.tracking else { return nil }
                // History's own entries are exempt: a read as of the past never reads
                // them (a store read so has no history), and the entries deleteHistory
                // removed would otherwise be kept as the versions of the horizon.
                return VersionRetention(after: max(state.horizon, 1) - 1, exempt: HistoryLog.entries)
            }
        }
        do {
            try settleHistory(migrated: migrated != nil)
        } catch {
            try? records.close()
            throw error
        }
        if let migrated { options.instrument?.operationFinished(.migrate, duration: migrated, error: nil) }
        if options.paranoidChecks {
            if var refusal = try verify().paranoidRefusal {
                try? records.close()
                refusal.path = refusal.path ?? path
                throw refusal
            }
        }
    }

    init(uncheckedRecords records: any RecordStore, model: ObjectModel, schema: StoreSchema, serials: [UInt16: UInt64], options: StoreOptions,
         exactTerms: Bool? = nil) {
        self.model = model
        self.path = ""
        self.options = options
        self.records = records
        self.lanes = StoreLanes(readerThreads: options.readerThreads)
        self.instrumentSlot = Locked(options.instrument)
        self.schema = schema
        self.serials = Locked(serials)
        self.exactTerms = exactTerms ?? Self.hasExactTerms(records.metadata)
        self.blobTerms = exactTerms ?? Self.hasBlobTerms(records.metadata, model: model)
        self.identifier = records.storeID.map { String(format: "%02x", $0) }.joined()
    }

    /// An in-memory store for tests: same engine, no disk.
    public static func inMemory(model: ObjectModel, options: StoreOptions = StoreOptions()) throws -> ObjectStore {
        var options = options
        options.storeType = .inMemory
        return try ObjectStore(at: "", model: model, options: options)
    }

    /// A new context on this store. Contexts are not `Sendable`: make one per task.
    public func newContext() -> ObjectContext { ObjectContext(store: self) }

    /// What the store has read and written since open (or `resetStatistics()`):
    /// records decoded, segment bytes, blob bytes.
    public var statistics: LogStatistics { records.statistics }

    /// Sets every statistics counter back to zero, to measure one operation.
    public func resetStatistics() { records.resetStatistics() }

    /// How much the store holds on disk and how much of it is garbage (superseded
    /// versions, deleted objects, unreferenced blobs): what compaction would reclaim.
    public var usage: StoreUsage { records.usage }

    /// The segment log the store's records live in, for the engine's own operations
    /// (`LogStore.sealActiveSegment()`, reading records by key, `LogStore.verify()`);
    /// nil for other store types. Compact through ``compact(force:bytesPerSecond:)``,
    /// which also trims history and drops rewritten layouts. Writes made through it
    /// bypass the object layer's checks, its layouts and its history: read through it,
    /// and write through contexts.
    public var segmentLog: LogStore? { records as? LogStore }

    /// Every committed change, as it is committed, by any context of this store.
    ///
    /// ```swift
    /// for await change in store.changes() {
    ///     if let missed = change.missed { reloadEverything(missed) }   // fell behind
    ///     otherContext.refresh(ids: change.updated)
    /// }
    /// ```
    ///
    /// A consumer that falls behind never stalls the store's writers: the stream holds
    /// up to ``StoreOptions/changeBufferLimit`` change sets, and those that arrive while
    /// it is full are dropped — never silently: the next change set delivered names the
    /// sequences dropped before it in ``ChangeSet/missed`` (one of its own when the
    /// consumer catches up before a later commit), so the consumer can reload what it
    /// caches. Back-pressure would have let one slow listener hold up every save.
    ///
    /// A change set comes as its commit becomes visible to this store's reads, which
    /// may be before the commit's fsync returns: it is for what this process holds. To
    /// hand changes on beyond it, follow ``changes(after:)``, which delivers only
    /// transactions a crash keeps.
    public func changes() -> ChangeStream {
        let (stream, continuation) = AsyncStream<ChangeSet>.makeStream(bufferingPolicy: .unbounded)
        let observer = ChangeObserver(continuation: continuation, limit: options.changeBufferLimit)
        let id = UUID()
        observers.withLock { $0[id] = observer }
        // The observers' box, not the store: a weak capture of the store would move its
        // reference count to a side table, slowing every retain and release of it.
        let observers = self.observers
        continuation.onTermination = { _ in
            _ = observers.withLock { $0.removeValue(forKey: id) }
        }
        return ChangeStream(base: stream, observer: observer)
    }

    /// Whether anyone listens to `changes()`: a save or batch insert of a million
    /// objects then skips building a change set no one would read.
    var hasObservers: Bool { observers.withLock { !$0.isEmpty } }

    func publish(_ change: ChangeSet) {
        // Under the lock: commits publishing at once reach each observer one at a time.
        observers.withLock { observers in
            for observer in observers.values { observer.deliver(change) }
        }
    }

    /// Flushes, releases the write lock and ends change streams; reads and writes of the
    /// async API fail with `.closed` from here on (``close()-1eu98`` waits for those
    /// in flight first).
    public func close() throws {
        let began = lanes.refuseNewWork()
        records.stopCompaction()
        defer {
            lanes.stop()
            // An async close called meanwhile or later returns (it waits for this one).
            if began { lanes.closeFinished() }
        }
        try closeRecords()
    }

    /// Ends change streams and closes the records.
    func closeRecords() throws {
        let observers = observers.withLock { o -> [ChangeObserver] in
            defer { o.removeAll() }
            return Array(o.values)
        }
        for observer in observers { observer.continuation.finish() }
        commitSignal.finish()
        try records.close()
    }

    // MARK: Opening

    private static func checkModel(_ model: ObjectModel, records: any RecordStore, path: String, logger: Logger) throws -> StoreSchema {
        let metadata = records.metadata
        guard let stored = RecordedModelHash(metadata: metadata, given: model) else {
            // No model hash: a new store — unless it holds the object layer's other
            // metadata or any commit, which a store opened by this layer never has
            // without its hash. Taking it for new would ignore its tags and layouts and
            // read every record wrong.
            let objectKeys = metadata.keys.filter { $0.hasPrefix("strata.") }.sorted()
            if !objectKeys.isEmpty || records.lastSequence > 0 {
                throw StrataError(.corrupt, "the store has no model hash but holds \(objectKeys.isEmpty ? "commits" : objectKeys.joined(separator: ", ")): its metadata is damaged, or it is not an object store",
                                  path: path, context: ["missing": StoreSchema.modelHashKey])
            }
            let schema = try StoreSchema(model: model)
            var metadata = metadata
            metadata[StoreSchema.modelHashKey] = Array(model.versionHash.utf8)
            metadata[StoreSchema.metadataKey] = try schema.encodedTags()
            metadata[StoreSchema.edgesMetadataKey] = try schema.encodedEdgeTags()
            metadata[StoreSchema.modelKey] = Array(try model.jsonData())
            metadata[StoreSchema.termsKey] = StoreSchema.exactTermsVersion
            metadata[StoreSchema.blobTermsKey] = StoreSchema.blobTermsVersion
            try records.setMetadata(MetadataDigest.sealed(metadata))
            return schema
        }
        guard stored.current == model.versionHash else {
            throw StrataError(
                .incompatibleModel,
                "the model used to open the store is incompatible with the one used to create the store (store model hash \(stored.recorded), given model hash \(model.versionHash))",
                path: path, context: ["storeHash": stored.recorded, "modelHash": model.versionHash])
        }
        if stored.isLegacy { upgradeLegacyMetadata(model, records: records, path: path, logger: logger) }
        return try ObjectStore.storedSchema(in: records, model: model)
    }

    /// Next serial per entity and edge relation: past the counter record and past the highest key, so a
    /// deleted object's id is never handed out again.
    static func loadSerials(schema: StoreSchema, records: any RecordStore) throws -> [UInt16: UInt64] {
        var serials: [UInt16: UInt64] = [:]
        for tag in schema.allTags { serials[tag] = try loadSerials(tag: tag, records: records) }
        return serials
    }

    /// The next serial of `tag` as the records say: past its counter and its last key.
    static func loadSerials(tag: UInt16, records: any RecordStore) throws -> UInt64 {
        var next: UInt64 = 1
        if let counter = try records.get(StoreSchema.counterKey(tag: tag)), counter.value.count == 8 {
            next = counter.value.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        }
        if let last = try records.lastKey(in: StoreSchema.range(tag: tag)) {
            next = max(next, (last.rawValue & ObjectID.serialMask) + 1)
        }
        return next
    }

    /// Allocates the next key of an entity.
    func allocateKey(tag: UInt16) throws -> RecordKey {
        if records.hasOtherWriters { return StoreSchema.key(tag: tag, serial: try sharedSerials(tag: tag, count: 1).lowerBound) }
        // One lookup of the tag, read and moved on in place (a read and a write hashed it twice).
        let serial = serials.withLock { s -> UInt64 in Self.postIncrement(&s[tag, default: 1]) }
        guard serial < ObjectID.serialMask else { throw StrataError(.invalidArgument, "entity has used all 2^48 object ids") }
        return StoreSchema.key(tag: tag, serial: serial)
    }

    /// The serial, moved on unless it is past the last one (`allocateKey` then throws;
    /// a damaged counter at 2^64 − 1 must not wrap or trap).
    private static func postIncrement(_ serial: inout UInt64) -> UInt64 {
        let current = serial
        if current < ObjectID.serialMask { serial = current + 1 }
        return current
    }

    /// `count` consecutive keys of one entity, under one lock (a batch insert's).
    func allocateKeys(tag: UInt16, count: Int) throws -> [RecordKey] {
        let serials = try reserveSerials(tag: tag, count: count)
        return serials.map { StoreSchema.key(tag: tag, serial: $0) }
    }

    /// Moves an entity's serial on by `count` under one lock; returns the serials
    /// taken. `orFewer` takes what is left when fewer than `count` are (at least one).
    private func reserveSerials(tag: UInt16, count: Int, orFewer: Bool = false) throws -> Range<UInt64> {
        if records.hasOtherWriters { return try sharedSerials(tag: tag, count: count) }
        return try serials.withLock { s -> Range<UInt64> in
            let next = s[tag, default: 1]
            // Subtracted, not added: a damaged counter near 2^64 must not overflow.
            let left = ObjectID.serialMask - min(next, ObjectID.serialMask)
            let taken = orFewer ? min(UInt64(max(0, count)), left) : UInt64(max(0, count))
            guard count >= 0, next <= ObjectID.serialMask, taken <= left, taken > 0 || !orFewer else {
                throw StrataError(.invalidArgument, "entity has used all 2^48 object ids")
            }
            s[tag] = next + taken
            return next ..< next + taken
        }
    }

    /// Serials of one entity taken a run at a time by an insert that allocates its
    /// keys one object at a time (the handler form of batch insert): a lock and a
    /// lookup per run instead of per object.
    struct KeyRun {
        static let length = 256
        var next: UInt64 = 0
        var end: UInt64 = 0
    }

    /// The next key of `run`, which takes a new run of serials when it is used up (a
    /// shorter one near the last serial).
    func allocateKey(tag: UInt16, from run: inout KeyRun) throws -> RecordKey {
        if run.next == run.end {
            let serials = try reserveSerials(tag: tag, count: KeyRun.length, orFewer: true)
            run.next = serials.lowerBound
            run.end = serials.upperBound
        }
        defer { run.next += 1 }
        return StoreSchema.key(tag: tag, serial: run.next)
    }

    /// Gives back the serials of `run` that were not used, when nothing took serials
    /// of the entity after it (otherwise they stay unused: keys need not be dense).
    func giveBack(_ run: KeyRun, tag: UInt16) {
        guard run.next < run.end else { return }
        serials.withLock { s in
            if s[tag] == run.end { s[tag] = run.next }
        }
    }

    func nextSerial(tag: UInt16) -> UInt64 {
        let next = serials.withLock { $0[tag, default: 1] }
        guard records.hasOtherWriters else { return next }
        return max(next, serialBlocks.withLock { $0[tag]?.upperBound ?? 0 })
    }

    /// Serials of a store that other processes write too: the store reserves them for
    /// this process (``RecordStore/reserveSerials(tag:count:floor:)``) a block at a
    /// time, so that two processes never give out the same key; a block's serials
    /// left unused when the process ends stay unused (keys need not be dense).
    private func sharedSerials(tag: UInt16, count: Int) throws -> Range<UInt64> {
        guard count >= 0 else { throw StrataError(.invalidArgument, "a negative count of object ids") }
        let floor = serials.withLock { $0[tag, default: 1] }
        return try serialBlocks.withLock { blocks -> Range<UInt64> in
            var block = blocks[tag] ?? floor ..< floor
            if block.count < count {
                let wanted = max(count, Self.sharedSerialBlock)
                guard let first = try records.reserveSerials(tag: tag, count: wanted, floor: max(floor, block.upperBound)) else {
                    throw StrataError(.invalidArgument, "the store reports other writers but reserves no object ids")
                }
                let (end, overflow) = first.addingReportingOverflow(UInt64(wanted))
                guard !overflow, end <= ObjectID.serialMask else { throw StrataError(.invalidArgument, "entity has used all 2^48 object ids") }
                block = first ..< end
            }
            let taken = block.lowerBound ..< block.lowerBound + UInt64(count)
            blocks[tag] = taken.upperBound ..< block.upperBound
            return taken
        }
    }

    /// Serials a process reserves from a store other processes write too, at least:
    /// a round trip to the store per this many inserts.
    static let sharedSerialBlock = 64

    /// Adds to `batch` the serial counters of `tags` (`StoreSchema.counterKey`), read
    /// after every key the batch writes was allocated, so each is below its counter.
    ///
    /// Open takes an entity's next serial from the larger of its counter and its last
    /// key (`loadSerials`), so a counter is needed only where that last key may be gone:
    /// a transaction that deletes objects of the entity writes it, one that only
    /// inserts does not. (Edge tags, whose serials also number positions, write it
    /// whenever they allocate.) Writing it with every insert put the counter — serial 0,
    /// the lowest key of the entity — into every segment, so that every segment's key
    /// range spanned the entity's older keys and a lookup had to ask every newer
    /// segment's Bloom filter: at ten million objects, 166 filters a lookup, more than
    /// the cache holds.
    func putSerialCounters(_ tags: Set<UInt16>, into batch: inout WriteBatch) {
        for tag in tags.sorted() {
            batch.put(StoreSchema.counterKey(tag: tag), value: withUnsafeBytes(of: nextSerial(tag: tag).littleEndian) { Array($0) })
        }
    }

    /// Commits the counters of every entity and edge tag of the schema, once: a
    /// migration ends with it, so that the serials the old store had given out (some
    /// to objects deleted before the migration) are never given out again.
    func commitSerialCounters() throws {
        var batch = WriteBatch()
        putSerialCounters(Set(schema.allTags), into: &batch)
        if !batch.isEmpty { try records.commit(batch) }
    }

    func objectID(for key: RecordKey) -> ObjectID? {
        schema.entityName(of: key).map { ObjectID(entityName: $0, key: key, storeIdentifier: identifier) }
    }

    /// The object ID that a URI names, if it names an object of this store's model.
    public func objectID(forURI uri: String) -> ObjectID? {
        let prefix = "strata://"
        guard uri.hasPrefix(prefix) else { return nil }
        let parts = uri.dropFirst(prefix.count).split(separator: "/")
        guard parts.count == 3, String(parts[0]) == identifier, let tag = schema.tags[String(parts[1])],
              let serial = UInt64(parts[2]), serial > 0, serial < ObjectID.serialMask else { return nil }
        return ObjectID(entityName: String(parts[1]), key: StoreSchema.key(tag: tag, serial: serial), storeIdentifier: identifier)
    }
}
