import Logging

extension LogStore {
    /// Opens the store in `path`, creating it when the directory holds none (unless
    /// `options.createIfMissing` is false), and recovers from a crash: a torn tail of
    /// the active segment is truncated back to the last whole transaction; leftover
    /// files of an unfinished roll, compaction or manifest swap are removed.
    ///
    /// Open cross-checks what the store's files say of each other (FORMAT.md §4.4,
    /// §4.6): a counter of the manifest that is not above the ids in use is raised
    /// with a warning; a file the manifest does not list is removed only when it can
    /// hold nothing acknowledged.
    ///
    /// - Throws: `StrataError.Code.storeLocked` when another process writes the store;
    ///   `.corrupt` naming the file and offset when a sealed segment, the manifest or
    ///   a blob file header is damaged, when a segment does not hold the sequences its
    ///   seal or manifest entry records, when a frame whose checksum holds is damaged
    ///   in the active segment, or when an unlisted segment or blob file may hold
    ///   acknowledged data (nothing is removed); `.limitExceeded` when an interrupted
    ///   roll cannot be finished because segment ids are exhausted;
    ///   `.unsupportedFormat`; `.io`.
    public static func open(
        at path: String,
        options: LogStoreOptions = LogStoreOptions(),
        fileSystem: any FileSystem = POSIXFileSystem(),
        logger: Logger = Logger(label: "strata.log")
    ) throws -> LogStore {
        try open(at: path, options: options, fileSystem: fileSystem, logger: logger, identity: nil)
    }

    /// What a new store is created with when it must fit into another: a staging
    /// store shares its parent's id and numbers its files after the parent's.
    struct Identity {
        var storeID: [UInt8]
        var firstSegmentID: UInt32
        var firstBlobID: UInt32
    }

    /// `cache`: the block cache to read through, shared with another store (a staging
    /// store reads through its owner's, so that a migration holds one cache, not two);
    /// nil makes one of `options.blockCacheBytes`.
    static func open(at path: String, options: LogStoreOptions, fileSystem: any FileSystem, logger: Logger, identity: Identity?,
                     cache: BlockCache? = nil) throws -> LogStore {
        let paths = StorePaths(path)
        let started = ContinuousClock.now
        if !fileSystem.exists(paths.manifest) {
            guard options.createIfMissing, !options.readOnly else {
                // A store that lost its manifest is damaged, not absent.
                try refuseOrphanedData(paths: paths, fileSystem: fileSystem, creating: false)
                throw StrataError(.notFound, "no store at this path (no MANIFEST)", path: path)
            }
            try refuseOrphanedData(paths: paths, fileSystem: fileSystem, creating: true)
            try fileSystem.createDirectory(paths.root)
        }
        // A reader registers before it reads the manifest: a writer that finds no reader
        // registered may cut the files it retired, which a manifest read after that no
        // longer names (FORMAT.md §1).
        let lock = options.readOnly ? registerReader(paths, fileSystem: fileSystem, logger: logger) : try fileSystem.lock(paths.lock)
        do {
            if !fileSystem.exists(paths.manifest) {
                try create(paths: paths, fileSystem: fileSystem, logger: logger, identity: identity)
            }
            let store = try recover(paths: paths, options: options, fileSystem: fileSystem, logger: logger, lock: lock, cache: cache)
            if options.paranoidChecks { try store.refuseUnlessSound(try store.verify()) }
            logger.info("opened store", metadata: [
                "path": "\(path)", "keys": "\(store.count)", "lastSequence": "\(store.lastSequence)",
                "elapsed": "\(ContinuousClock.now - started)",
            ])
            return store
        } catch let damage as IndexFile.Damage {
            // Every path of open that reads index blocks repairs what it meets; one that
            // cannot still throws the store's error type, never the internal one.
            lock?.unlock()
            throw damage.error
        } catch {
            lock?.unlock()
            throw error
        }
    }

    /// A read-only store's registration as a reader, or nil when it cannot register (no
    /// LOCK file, no right to read it, a file system without such locks): it reads all
    /// the same, and a writer beside it that compacts may then cut a retired file under
    /// it, which its reads report as `.corrupt`.
    private static func registerReader(_ paths: StorePaths, fileSystem: any FileSystem, logger: Logger) -> (any FileLock)? {
        do {
            return try fileSystem.readerRegistry.lockForReading(paths.lock)
        } catch {
            logger.warning("reading without registering as a reader: a writer's compaction may cut a file this store still reads", metadata: [
                "path": "\(paths.lock)", "error": "\(error)",
            ])
            return nil
        }
    }

    /// A directory without MANIFEST is new, or a creation that crashed before its
    /// manifest (its files then hold headers only). Anything more is a store that lost
    /// its manifest: creating over it would delete data, so open refuses.
    private static func refuseOrphanedData(paths: StorePaths, fileSystem: any FileSystem, creating: Bool) throws {
        for (directory, headerSize) in [(paths.segments, Format.segmentHeaderSize), (paths.blobs, Format.blobHeaderSize)] where fileSystem.isDirectory(directory) {
            for name in try fileSystem.contentsOfDirectory(directory) {
                // Not a store's file, and not the store's to remove with the folder.
                if fileSystem.isDirectory(directory + "/" + name) {
                    throw StrataError(.corrupt, "the directory holds a directory where store files go, and no MANIFEST" + (creating ? "; refusing to create a new store over it" : ""),
                                      path: directory + "/" + name)
                }
                let file = try fileSystem.open(directory + "/" + name, mode: .readOnly)
                let size = try file.size()
                try? file.close()
                if size > Int64(headerSize) {
                    throw StrataError(.corrupt, "the directory holds store data but no MANIFEST" + (creating ? "; refusing to create a new store over it" : ": the store lost its manifest"),
                                      path: directory + "/" + name)
                }
            }
        }
    }

    /// Writes an empty store: directories, segment 1, blob file 1, then the manifest
    /// last, so a crash during creation leaves a directory without MANIFEST, which is
    /// created afresh next time.
    private static func create(paths: StorePaths, fileSystem: any FileSystem, logger: Logger, identity: Identity?) throws {
        for directory in [paths.segments, paths.blobs, paths.index] {
            try fileSystem.remove(directory)
            try fileSystem.createDirectory(directory)
        }
        var manifest = Manifest(storeID: identity?.storeID ?? randomStoreID())
        if let identity {
            manifest.nextSegmentID = identity.firstSegmentID
            manifest.nextBlobID = identity.firstBlobID
        }
        let segment = try manifest.allocateSegmentID()
        let blob = try manifest.allocateBlobID()
        try createFile(paths.segment(segment), magic: Format.segmentMagic, id: segment, storeID: manifest.storeID, fileSystem: fileSystem).close()
        try createFile(paths.blob(blob), magic: Format.blobMagic, id: blob, storeID: manifest.storeID, fileSystem: fileSystem).close()
        try fileSystem.syncDirectory(paths.segments)
        try fileSystem.syncDirectory(paths.blobs)
        try fileSystem.syncDirectory(paths.index)
        try fileSystem.syncDirectory(paths.root)
        // The store directory itself is an entry of its parent: without this a power
        // loss can take the whole new store away after its first commits were acknowledged.
        try fileSystem.syncDirectory(paths.parent)
        manifest.segments = [.init(id: segment, state: .active, minSequence: 0, maxSequence: 0)]
        manifest.blobFiles = [.init(id: blob, state: .active)]
        try ManifestWriter(fileSystem: fileSystem, paths: paths).write(manifest)
        logger.info("created store", metadata: ["path": "\(paths.root)"])
    }

    /// Creates a segment or blob file with its header, fsynced. The caller syncs the directory.
    static func createFile(_ path: String, magic: [UInt8], id: UInt32, storeID: [UInt8], fileSystem: any FileSystem) throws -> any StorageFile {
        try fileSystem.remove(path)
        let file = try fileSystem.open(path, mode: .create)
        do {
            try file.write(FileHeader(magic: magic, version: Format.version, fileID: id, storeID: storeID).encoded(), at: 0)
            try file.sync()
        } catch {
            try? file.close()
            throw error
        }
        return ReclaimableFile(file)
    }

    static func randomStoreID() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func recover(paths: StorePaths, options: LogStoreOptions, fileSystem: any FileSystem, logger: Logger, lock: (any FileLock)?,
                                cache shared: BlockCache?) throws -> LogStore {
        let manifestWriter = ManifestWriter(fileSystem: fileSystem, paths: paths)
        if !options.readOnly {
            try fileSystem.remove(paths.manifestTemp)
            // A migration that did not reach its swap: its staging store is garbage.
            if fileSystem.exists(paths.staging) {
                logger.warning("removing the staging directory of an unfinished migration", metadata: ["path": "\(paths.staging)"])
                try fileSystem.remove(paths.staging)
            }
        }
        var manifest = try manifestWriter.read()
        if !options.readOnly && !fileSystem.isDirectory(paths.index) {
            // Index files are derived data, and an empty index/ does not survive every
            // copy (git keeps no empty directory): recreate it and rebuild them.
            logger.info("index directory missing; recreating it, index files will be rebuilt", metadata: ["path": "\(paths.index)"])
            try fileSystem.createDirectory(paths.index)
            try fileSystem.syncDirectory(paths.root)
        }
        if !options.readOnly { try removeLeftovers(paths: paths, manifest: manifest, fileSystem: fileSystem, logger: logger) }

        let cache = shared ?? BlockCache(budget: options.blockCacheBytes)
        var state = State(manifest: manifest)
        let upgrading = manifest.version < 2
        // Sequences never go back, even when compaction dropped the records that
        // carried the newest ones: the manifest keeps an upper bound per segment.
        state.lastSequence = manifest.segments.map(\.maxSequence).max() ?? 0
        // Sealed segments: the footer of each index file, nothing per object. A missing
        // or damaged index file is rebuilt from its segment with a warning.
        var rebuiltSegments: [UInt32] = []
        for info in manifest.segments where info.state == .sealed {
            let file = try openChecked(paths.segment(info.id), magic: Format.segmentMagic, id: info.id, manifest: manifest, fileSystem: fileSystem, readOnly: true, sealed: true)
            state.segmentFiles[info.id] = file
            let index: IndexFile
            if upgrading {
                // A format-1 store is read as it is, its index built in memory; its first
                // write upgrades it (FORMAT.md §12), so an open that only reads, or that
                // the object layer refuses, leaves it byte for byte as it was.
                index = try upgradeIndex(info, segment: file, paths: paths, manifest: manifest, fileSystem: fileSystem, cache: cache, logger: logger)
            } else if let sound = try loadIndexFile(info, paths: paths, manifest: manifest, segmentSize: try file.size(), fileSystem: fileSystem, cache: cache, logger: logger) {
                index = sound
            } else {
                index = try rebuildIndexFile(segment: file, info: info, storeID: manifest.storeID, paths: paths, fileSystem: fileSystem,
                                             cache: cache, writable: !options.readOnly, sortBatch: options.bulkSortBatch).0
                rebuiltSegments.append(info.id)
                if options.readOnly { state.indexFilesRebuiltInMemory.insert(info.id) }
            }
            state.index.install(index)
            state.recordBytesBySegment[info.id] = Int64(clamping: index.footer.recordBytes)
            state.lastSequence = max(state.lastSequence, index.footer.maxSequence)
        }
        if upgrading {
            // Format 1 kept no counters: one pass over the index files makes them.
            state.index.counters = try countersByMerging(state.index)
            state.legacySealedCounters = state.index.counters
        } else {
            state.index.counters = manifest.counters
            for id in rebuiltSegments {
                try checkRebuiltLiveBytes(segment: id, index: state.index, counters: manifest.counters, path: paths.segment(id), logger: logger)
            }
            if let first = rebuiltSegments.first {
                try checkRebuiltLiveKeys(index: state.index, counters: manifest.counters, path: paths.segment(first), logger: logger)
            }
        }

        // Runs `body`; a damaged index file it meets (open reads index blocks while
        // replaying the active segment, and when the active blob file has a tail to cut)
        // is rebuilt from its segment, once per file, and `body` runs again.
        var repairedAtOpen = Set<UInt32>()
        func repairingIndexAtOpen<T>(_ body: () throws -> T) throws -> T {
            while true {
                do {
                    return try body()
                } catch let damage as IndexFile.Damage {
                    guard repairedAtOpen.insert(damage.segmentID).inserted, let segment = state.segmentFiles[damage.segmentID],
                          let info = manifest.segments.first(where: { $0.id == damage.segmentID }) else { throw damage.error }
                    logger.warning("damaged index file; rebuilding it from its segment", metadata: ["segment": "\(damage.segmentID)", "error": "\(damage.error)"])
                    let rebuilt = try rebuildIndexFile(segment: segment, info: info, storeID: manifest.storeID, paths: paths, fileSystem: fileSystem,
                                                       cache: cache, writable: !options.readOnly && !upgrading, sortBatch: options.bulkSortBatch).0
                    state.index.install(rebuilt)
                    if options.readOnly { state.indexFilesRebuiltInMemory.insert(damage.segmentID) }
                }
            }
        }

        // The active segment: scanned whole; a torn tail is the end of the log.
        guard let activeInfo = manifest.activeSegment else {
            throw StrataError(.corrupt, "manifest has no active segment", path: paths.manifest)
        }
        let activeFile = try openActiveSegment(activeInfo.id, paths: paths, manifest: manifest, fileSystem: fileSystem, options: options, logger: logger)
        state.segmentFiles[activeInfo.id] = activeFile
        // Streamed transaction by transaction: the active segment may hold tens of MiB
        // of records, and only the index entries are kept.
        // Commits reach the active segment in sequence order, each above every sealed
        // segment's: a transaction out of that order was re-sequenced, and indexing it
        // could let a stale version win (FORMAT.md §4.4).
        let sealedMaxSequence = manifest.segments.filter { $0.state == .sealed }.map(\.maxSequence).max() ?? 0
        let beforeReplay = (counters: state.index.counters, lastSequence: state.lastSequence)
        // A committed transaction larger than the overlay may hold (a chunked commit,
        // FORMAT.md §4.7, cut off between its commit frame and its seal) is not replayed
        // into memory: the segment is sealed around it below, its index file built
        // through scratch sorters. A read-only open, which may write nothing, replays it
        // (see `replayPastLarge`), and so does the open of a format-1 store, which its
        // first write upgrades (an open leaves it byte for byte as it was, FORMAT.md §12).
        let transactionLimit = upgrading ? Int.max : max(1, options.overlayEntryLimit)
        func outOfOrder(_ sequence: UInt64, after previous: UInt64, at offset: Int64) -> StrataError {
            StrataError(.corrupt, "transaction \(sequence) in the active segment does not follow \(previous): its sequence was changed",
                        path: activeFile.path, offset: offset)
        }
        func replayActive(limit: Int = transactionLimit) throws -> SegmentScanner.Result {
            var previousSequence = sealedMaxSequence
            return try SegmentScanner(file: activeFile, segmentID: activeInfo.id, statistics: nil).scan(collect: false, transactionLimit: limit) { transaction in
                if let first = transaction.first {
                    guard first.record.sequence > previousSequence else {
                        throw outOfOrder(first.record.sequence, after: previousSequence, at: Int64(first.location.frameOffset))
                    }
                    previousSequence = first.record.sequence
                }
                // A damaged block found while replaying: rebuild that index file, replay again.
                try repairingIndexAtOpen { try apply(transaction, to: &state) }
            }
        }
        // The same scan, its records handed over a frame at a time and not kept (what
        // was replayed before the large transaction is taken back): where the segment's
        // transactions end, and its damage.
        func scanWithoutReplay() throws -> SegmentScanner.Result {
            state.index.overlay = IndexOverlay()
            state.index.counters = beforeReplay.counters
            state.lastSequence = beforeReplay.lastSequence
            // A transaction's records share its sequence; each transaction's is above
            // the one before it (above every sealed segment's for the first).
            var current: UInt64?
            var misordered: (sequence: UInt64, after: UInt64, offset: Int64)?
            let scan = try SegmentScanner(file: activeFile, segmentID: activeInfo.id, statistics: nil).scan(collect: false, provisional: true) { records in
                for scanned in records where misordered == nil && scanned.record.sequence != current {
                    let floor = current ?? sealedMaxSequence
                    if scanned.record.sequence <= floor { misordered = (scanned.record.sequence, floor, Int64(scanned.location.frameOffset)) }
                    current = scanned.record.sequence
                }
            }
            // Records past the last commit frame are a torn tail, not a changed sequence.
            if let found = misordered, found.offset < scan.validEnd {
                throw outOfOrder(found.sequence, after: found.after, at: found.offset)
            }
            return scan
        }
        // A read-only open met a transaction larger than the overlay. Most often it is
        // the tail of a chunked commit killed before its commit frame (an import, an
        // index build), which may be hundreds of MiB: held until the end of the file to
        // be thrown away, it would cost memory in proportion. A provisional scan from
        // its start, which holds no records, says whether a commit frame closes it: if
        // none does, what was replayed before it is the store. Only a committed one (its
        // seal lost to a kill) is replayed whole, as nothing may be written to seal it.
        func replayPastLarge(_ before: SegmentScanner.Result) throws -> SegmentScanner.Result {
            let tail = try SegmentScanner(file: activeFile, segmentID: activeInfo.id, statistics: nil)
                .scan(collect: false, provisional: true, from: before.validEnd) { _ in }
            guard tail.validEnd > before.validEnd else {
                var scan = before
                scan.stoppedAtLargeTransaction = false
                scan.damage = tail.damage
                scan.damageIsDefinite = tail.damageIsDefinite
                return scan
            }
            state.index.overlay = IndexOverlay()
            state.index.counters = beforeReplay.counters
            state.lastSequence = beforeReplay.lastSequence
            return try replayActive(limit: .max)
        }
        var scan = try replayActive()
        if scan.stoppedAtLargeTransaction && options.readOnly { scan = try replayPastLarge(scan) }
        var sealsAroundLarge = scan.stoppedAtLargeTransaction
        if sealsAroundLarge { scan = try scanWithoutReplay() }
        if let damage = scan.damage {
            let size = try activeFile.size()
            let intactAfter = try SegmentScanner.intactCommits(in: activeFile, after: damage.offset)
            // A frame whose checksum holds but whose content is wrong is no torn write,
            // wherever it lies: cutting there would drop acknowledged transactions.
            if scan.damageIsDefinite && !options.salvageDamagedTail {
                throw StrataError(.corrupt, "frame with a sound checksum is damaged (\(damage.reason)) in the active segment, followed by \(intactAfter) intact transactions: this is damage, not a torn tail; open with salvageDamagedTail to cut the log here and lose what follows", path: activeFile.path, offset: damage.offset)
            }
            if intactAfter >= 2 && !options.salvageDamagedTail {
                throw StrataError(.corrupt, "damaged frame (\(damage.reason)) in the active segment is followed by \(intactAfter) intact transactions: this is damage in the middle of the log, not a torn tail; open with salvageDamagedTail to cut the log here and lose them", path: activeFile.path, offset: damage.offset)
            }
            if intactAfter >= 2 || scan.damageIsDefinite {
                logger.error("salvaging: cutting the active segment at damage, dropping intact transactions after it", metadata: ["path": "\(activeFile.path)", "offset": "\(damage.offset)", "dropped": "\(intactAfter)"])
            }
            if options.readOnly {
                logger.warning("ignoring torn tail of active segment", metadata: ["path": "\(activeFile.path)", "offset": "\(scan.validEnd)", "reason": "\(damage.reason)"])
            } else {
                logger.warning("truncating torn tail of active segment", metadata: [
                    "path": "\(activeFile.path)", "from": "\(size)", "to": "\(scan.validEnd)", "reason": "\(damage.reason)",
                ])
                try activeFile.truncate(to: scan.validEnd)
                try activeFile.sync()
            }
        }

        if sealsAroundLarge && scan.damage != nil {
            // The cut may have taken the large transaction with it (a chunked commit
            // stopped before its commit frame): what is left replays as usual.
            scan = try replayActive()
            sealsAroundLarge = scan.stoppedAtLargeTransaction
            if sealsAroundLarge { scan = try scanWithoutReplay() }
        }
        var segmentEnd = scan.validEnd
        var largeSeal: (bulk: BulkSeal, index: IndexFile)?
        if sealsAroundLarge {
            logger.warning("the active segment holds a committed transaction larger than the overlay (a chunked commit interrupted before its seal): sealing the segment around it",
                           metadata: ["segment": "\(activeInfo.id)", "path": "\(activeFile.path)"])
            let sealed = try repairingIndexAtOpen {
                try sealAroundLargeTransaction(activeFile, id: activeInfo.id, scan: scan, end: &segmentEnd, index: state.index, storeID: manifest.storeID,
                                               paths: paths, fileSystem: fileSystem, cache: cache, sortBatch: options.bulkSortBatch)
            }
            largeSeal = sealed
        } else {
            state.recordBytesBySegment[activeInfo.id, default: 0] += scan.recordBytes
        }

        // The active segment's versions, wherever they are now: the overlay, or the
        // index file just built for it (installed for readers by the roll below).
        // (Taken afresh for each use: an index file repaired meanwhile is in `state`.)
        func indexWithActive() -> StoreIndex {
            var index = state.index
            if let largeSeal { index.install(largeSeal.index) }
            return index
        }
        try settleUnlistedFiles(paths: paths, manifest: manifest, index: indexWithActive(), fileSystem: fileSystem, logger: logger, readOnly: options.readOnly)
        repairCounters(&manifest, paths: paths, fileSystem: fileSystem, logger: logger)

        // The active blob file: entries after the last whole one are cut.
        guard let activeBlob = manifest.activeBlobFile else {
            throw StrataError(.corrupt, "manifest has no active blob file", path: paths.manifest)
        }
        for info in manifest.blobFiles {
            let isActive = info.id == activeBlob.id
            state.blobFiles[info.id] = try openChecked(paths.blob(info.id), magic: Format.blobMagic, id: info.id, manifest: manifest, fileSystem: fileSystem, readOnly: options.readOnly || !isActive)
        }
        guard let blobFile = state.blobFiles[activeBlob.id] else {
            throw StrataError(.corrupt, "active blob file missing", path: paths.blob(activeBlob.id))
        }
        var blobEnd = try BlobReader.validEnd(of: blobFile)
        let blobSize = try blobFile.size()
        // Only a blob file with bytes after its last whole entry needs to know which of
        // its blobs commits reference (a walk of the index).
        let referencedEnd = blobEnd < blobSize ? try repairingIndexAtOpen { try Self.referencedEnd(ofBlobFile: activeBlob.id, index: indexWithActive()) } : 0
        if blobEnd < referencedEnd {
            // Damage before blobs that commits reference: not a torn tail. Keep every
            // byte (reads of the damaged blob fail loudly; verify reports it) and append after.
            logger.error("damaged blob entry before committed blobs; keeping the file whole", metadata: ["path": "\(blobFile.path)", "offset": "\(blobEnd)"])
            blobEnd = blobSize
        } else if blobEnd < blobSize && !options.readOnly {
            logger.warning("truncating torn tail of blob file", metadata: ["path": "\(blobFile.path)", "from": "\(blobSize)", "to": "\(blobEnd)"])
            try blobFile.truncate(to: blobEnd)
            try blobFile.sync()
        } else if options.readOnly {
            blobEnd = blobSize
        }

        let writer = WriterState(
            segmentID: activeInfo.id, segmentFile: options.readOnly ? nil : activeFile, segmentEnd: segmentEnd,
            segmentMinSequence: scan.minSequence, segmentMaxSequence: scan.maxSequence,
            blobID: activeBlob.id, blobFile: options.readOnly ? nil : blobFile, blobEnd: blobEnd)
        state.manifest = manifest
        let store = LogStore(path: paths.root, options: options, fileSystem: fileSystem, logger: logger, lock: lock, state: state, writer: writer, cache: cache)

        if let largeSeal {
            // The roll a chunked commit ends with: the index file renamed into place, a
            // new active segment, the manifest swapped with the counters.
            try store.writer.withLock { w in try store.finishRoll(&w, alreadySealed: true, bulk: largeSeal.bulk) }
            try? largeSeal.index.file.close()
            manifest = store.state.withLock { $0.manifest }
        } else if scan.sealed && !options.readOnly {
            // A crash between sealing the active segment and swapping the manifest leaves
            // a sealed segment still listed as active: finish the roll now.
            logger.info("finishing an interrupted segment roll", metadata: ["segment": "\(activeInfo.id)"])
            try store.writer.withLock { w in try store.finishRoll(&w, alreadySealed: true) }
            manifest = store.state.withLock { $0.manifest }
        }
        return store
    }

    /// Replays committed records of the active segment into the overlay and counters.
    /// Looks up every record's previous version before applying any, so that a damaged
    /// index file found here (and rebuilt by the caller) leaves nothing half applied.
    static func apply(_ records: [SegmentScanner.ScannedRecord], to state: inout State) throws {
        // A memo per file: each file's fence is read once for the records, not per record.
        var memos = IndexFile.LookupMemo.perFile(state.index.files.count)
        let sealed = try records.map { scanned in
            state.index.overlay.entry(scanned.record.key) != nil ? nil
                : try StoreIndex.sealedEntry(scanned.record.key, in: state.index.files, memos: &memos)
        }
        for (scanned, sealedVersion) in zip(records, sealed) {
            let r = scanned.record
            let entry = IndexEntry(key: r.key, sequence: r.sequence, isTombstone: r.isTombstone, location: scanned.location, blobs: r.blobs)
            state.index.apply(entry, terms: r.terms, replacing: state.index.overlay.entry(r.key) ?? sealedVersion)
            state.lastSequence = max(state.lastSequence, r.sequence)
        }
    }

    /// The end of the last blob entry of `file` that a current version references: the
    /// active blob file's entries after it may be cut as a torn tail. Streams the
    /// overlay and the index files (open reads no per-object data otherwise only when
    /// the active blob file has a torn tail, see the caller).
    private static func referencedEnd(ofBlobFile file: UInt32, index: StoreIndex) throws -> Int64 {
        var end: Int64 = 0
        func note(_ e: IndexEntry) {
            for blob in e.blobs where blob.file == file {
                end = max(end, Int64(clamping: blob.offset) &+ Int64(Format.blobEntryHeaderSize) &+ Int64(clamping: blob.length))
            }
        }
        for e in index.overlay.allEntries { note(e) }
        for f in index.files { try f.forEachEntry(note) }
        return end
    }

    /// Counters computed from the index files (a format-1 store, which kept none):
    /// the newest version of every key, merged across the files.
    private static func countersByMerging(_ index: StoreIndex) throws -> IndexCounters {
        do {
            return try IndexCounters(counting: index)
        } catch let damage as IndexFile.Damage {
            throw damage.error
        }
    }

    /// A format-1 segment's index file, from its hint file when sound, else by a scan
    /// (FORMAT.md §12), kept in memory until the store's first write upgrades it.
    private static func upgradeIndex(_ info: Manifest.SegmentInfo, segment: any StorageFile, paths: StorePaths, manifest: Manifest, fileSystem: any FileSystem,
                                     cache: BlockCache, logger: Logger) throws -> IndexFile {
        guard let hint = loadHint(info, paths: paths, manifest: manifest, segmentSize: try segment.size(), fileSystem: fileSystem, logger: logger) else {
            return try rebuildIndexFile(segment: segment, info: info, storeID: manifest.storeID, paths: paths, fileSystem: fileSystem,
                                        cache: cache, writable: false).0
        }
        var builder = IndexFileBuilder()
        for e in hint.entries {
            builder.add(IndexEntry(key: e.key, sequence: e.sequence, isTombstone: e.isTombstone, location: e.location, blobs: e.blobs), terms: e.terms)
        }
        let bytes = try builder.encoded(segmentID: info.id, storeID: manifest.storeID, minSequence: hint.minSequence, maxSequence: hint.maxSequence,
                                    recordBytes: Int64(clamping: hint.recordBytes), segmentLength: try segment.size())
        return try installIndexBytes(bytes, segmentID: info.id, storeID: manifest.storeID, paths: paths, fileSystem: fileSystem, cache: cache, writable: false)
    }

    /// A sealed segment's index file when it is sound (FORMAT.md §7.7): present, its
    /// footer intact and naming this segment and store, its sequences those of the
    /// manifest's entry (§4.2), its record bytes within the segment. Otherwise nil,
    /// with a warning.
    ///
    /// - Throws: `.corrupt` when the file is sound but the segment is not as long as
    ///   when it was sealed: a sealed segment never changes, so it was cut, extended or
    ///   rewritten, and an index rebuilt from it would take its records at their word.
    private static func loadIndexFile(_ info: Manifest.SegmentInfo, paths: StorePaths, manifest: Manifest, segmentSize: Int64, fileSystem: any FileSystem, cache: BlockCache, logger: Logger) throws -> IndexFile? {
        let path = paths.indexFile(info.id)
        guard fileSystem.exists(path) else {
            logger.warning("no index file for a sealed segment; rebuilding it from the segment", metadata: ["segment": "\(info.id)"])
            return nil
        }
        let index: IndexFile
        do {
            index = try openIndexFile(info.id, paths: paths, storeID: manifest.storeID, fileSystem: fileSystem, cache: cache)
        } catch {
            logger.warning("damaged index file; rebuilding it from the segment", metadata: ["path": "\(path)", "error": "\(error)"])
            return nil
        }
        guard index.footer.maxSequence <= info.maxSequence, index.footer.minSequence == info.minSequence else {
            try? index.file.close()
            logger.warning("index file's sequences disagree with the manifest; rebuilding it from the segment", metadata: ["path": "\(path)"])
            return nil
        }
        guard Int64(index.footer.segmentLength) == segmentSize else {
            try? index.file.close()
            throw StrataError(.corrupt, "the sealed segment is \(segmentSize) bytes long, and was \(index.footer.segmentLength) when it was sealed: it changed since, so its records cannot be trusted. Restore it from a backup, or delete its index file to rebuild the index from the segment as it is now",
                              path: paths.segment(info.id), context: ["segment": "\(info.id)", "sealedLength": "\(index.footer.segmentLength)", "length": "\(segmentSize)"])
        }
        guard index.footer.recordBytes <= Self.maxRecordBytes(inSegmentOf: segmentSize) else {
            try? index.file.close()
            logger.warning("index file's record bytes exceed its segment; rebuilding it from the segment", metadata: ["path": "\(path)"])
            return nil
        }
        return index
    }

    /// A store id as it is shown in messages.
    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// Opens a file the manifest lists, its header checked. A sealed file must not
    /// be of a newer format than the manifest (`sealed`): every writer writes files of
    /// its own version and the manifest after them, so a manifest older than a sealed
    /// file had its version changed, and would be read by the wrong rules (a format-1
    /// manifest has no counters; a relabelled one would count nothing).
    private static func openChecked(_ path: String, magic: [UInt8], id: UInt32, manifest: Manifest, fileSystem: any FileSystem, readOnly: Bool,
                                    sealed: Bool = false) throws -> any StorageFile {
        guard fileSystem.exists(path) else {
            throw StrataError(.corrupt, "the manifest lists this file but it is missing", path: path)
        }
        let file = try fileSystem.open(path, mode: readOnly ? .readOnly : .readWrite)
        let header = try FileHeader.decode(try file.readExactly(FileHeader.size, at: 0), expectedMagic: magic, path: path)
        guard header.storeID == manifest.storeID else {
            throw StrataError(.corrupt, "file belongs to another store (its header names store \(Self.hex(header.storeID)), the manifest \(Self.hex(manifest.storeID)))", path: path, offset: 0)
        }
        guard header.fileID == id else {
            throw StrataError(.corrupt, "file carries another number (id \(header.fileID), expected \(id))", path: path, offset: 0)
        }
        if sealed && header.version > manifest.version {
            throw StrataError(.corrupt, "this sealed file is of format version \(header.version) but the manifest says \(manifest.version): the manifest's version was changed",
                              path: path, offset: 8, context: ["manifestVersion": "\(manifest.version)", "fileVersion": "\(header.version)"])
        }
        return ReclaimableFile(file)
    }

    /// The active segment may be shorter than its header if the crash came right
    /// after it was created; it holds no data then, so the header is rewritten.
    private static func openActiveSegment(_ id: UInt32, paths: StorePaths, manifest: Manifest, fileSystem: any FileSystem, options: LogStoreOptions, logger: Logger) throws -> any StorageFile {
        let path = paths.segment(id)
        if fileSystem.exists(path), !options.readOnly {
            let file = try fileSystem.open(path, mode: .readWrite)
            if try file.size() < Int64(FileHeader.size) {
                logger.warning("rewriting the header of an empty active segment", metadata: ["path": "\(path)"])
                try file.close()
                return try createFile(path, magic: Format.segmentMagic, id: id, storeID: manifest.storeID, fileSystem: fileSystem)
            }
            try file.close()
        }
        return try openChecked(path, magic: Format.segmentMagic, id: id, manifest: manifest, fileSystem: fileSystem, readOnly: options.readOnly)
    }

    private static func loadHint(_ info: Manifest.SegmentInfo, paths: StorePaths, manifest: Manifest, segmentSize: Int64, fileSystem: any FileSystem, logger: Logger) -> HintFile? {
        let id = info.id
        let path = paths.hint(id)
        guard fileSystem.exists(path) else {
            logger.info("no hint file; scanning segment", metadata: ["segment": "\(id)"])
            return nil
        }
        do {
            let file = try fileSystem.open(path, mode: .readOnly)
            defer { try? file.close() }
            // A hint describes at most every record of its segment, each in fewer bytes
            // than twice its own: a larger file is not read into memory at all.
            let hintSize = try file.size()
            guard hintSize <= 2 * segmentSize + 4096 else {
                logger.warning("hint file larger than its segment could need; scanning instead", metadata: ["path": "\(path)", "size": "\(hintSize)"])
                return nil
            }
            let hint = try HintFile.decode(try file.readExactly(Int(hintSize), at: 0), path: path)
            guard hint.segmentID == id, hint.storeID == manifest.storeID else {
                logger.warning("hint file belongs to another segment; scanning instead", metadata: ["path": "\(path)"])
                return nil
            }
            if let problem = hintProblem(hint, info: info, segmentSize: segmentSize) {
                logger.warning("hint file does not match its segment; scanning instead", metadata: ["path": "\(path)", "problem": "\(problem)"])
                return nil
            }
            return hint
        } catch {
            logger.warning("damaged hint file; scanning the segment instead", metadata: ["path": "\(path)", "error": "\(error)"])
            return nil
        }
    }

    /// Files a crash left behind that hold no data: hints of segments the manifest does
    /// not list and temporary files. Also checks that the store's folders exist.
    private static func removeLeftovers(paths: StorePaths, manifest: Manifest, fileSystem: any FileSystem, logger: Logger) throws {
        let segments = Set(manifest.segments.map(\.id))
        func sweep(_ directory: String, keep: (String) -> Bool) throws {
            guard fileSystem.isDirectory(directory) else {
                throw StrataError(.corrupt, "store directory is missing", path: directory)
            }
            for name in try fileSystem.contentsOfDirectory(directory) where !keep(name) {
                if isForeignDirectory(directory + "/" + name, fileSystem: fileSystem, logger: logger) { continue }
                logger.warning("removing leftover file", metadata: ["path": "\(directory)/\(name)"])
                try fileSystem.remove(directory + "/" + name)
            }
        }
        // Unlisted segment and blob files are settled once the index is known
        // (settleUnlistedFiles): one may hold data the manifest lost.
        try sweep(paths.segments) { _ in true }
        try sweep(paths.blobs) { _ in true }
        try sweep(paths.index) { name in
            if name.hasSuffix(".tmp") { return false }
            if let id = StorePaths.parseNumber(name, suffix: ".idx") { return segments.contains(id) }
            return StorePaths.parseNumber(name, suffix: ".hint").map(segments.contains) ?? true
        }
    }
}
