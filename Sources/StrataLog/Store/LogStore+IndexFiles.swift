import Logging

extension LogStore {
    /// Writes an index file atomically (FORMAT.md §7.7): `.tmp`, fsync, rename, fsync
    /// `index/`. A crash leaves the old file, none, or the new one, never a torn one
    /// under the final name.
    ///
    /// - Parameter bytesPerSync: written out this many bytes at a time (nil:
    ///   as the bytes come): compaction's files are, so that a commit's fsync meeting
    ///   one waits for a part of it, not all of it.
    static func writeIndexFile(_ bytes: [UInt8], segmentID: UInt32, paths: StorePaths, fileSystem: any FileSystem, bytesPerSync: Int? = nil) throws {
        try writeIndexFile(segmentID: segmentID, paths: paths, fileSystem: fileSystem, bytesPerSync: bytesPerSync) { _ in bytes }
    }

    /// Writes an index file as `writeIndexFile(_:segmentID:paths:fileSystem:bytesPerSync:)`
    /// does, encoded by `encode` as `IndexFileEncoder.stream(to:fileSystem:expectedEntries:_:)`
    /// encodes: bytes handed to `sink` as they are finished, the rest returned, so that
    /// the whole file is never held at once.
    static func writeIndexFile(segmentID: UInt32, paths: StorePaths, fileSystem: any FileSystem, bytesPerSync: Int? = nil,
                               encode: (_ sink: @escaping ([UInt8]) throws -> Void) throws -> [UInt8]) throws {
        let path = paths.indexFile(segmentID)
        let temp = path + ".tmp"
        try fileSystem.remove(temp)
        let file = try fileSystem.open(temp, mode: .create)
        do {
            var offset: Int64 = 0
            var unsynced = 0
            func write(_ bytes: [UInt8]) throws {
                var start = 0
                while start < bytes.count {
                    // Up to the next sync, or all of it when there is none to pace.
                    let room = bytesPerSync.map { max(1, $0 - unsynced) } ?? bytes.count - start
                    let end = min(bytes.count, start + room)
                    try bytes.withUnsafeBytes { try file.write(UnsafeRawBufferPointer(rebasing: $0[start..<end]), at: offset + Int64(start)) }
                    if let bytesPerSync {
                        unsynced += end - start
                        if unsynced >= bytesPerSync {
                            try file.writeBack((offset + Int64(end) - Int64(unsynced))..<(offset + Int64(end)))
                            unsynced = 0
                        }
                    }
                    start = end
                }
                offset += Int64(bytes.count)
            }
            // The sink lives only as long as `encode`, which keeps no encoder past its return.
            try write(withoutActuallyEscaping(write) { try encode($0) })
            try file.sync()
            try file.close()
        } catch {
            try? file.close()
            throw error
        }
        try fileSystem.rename(temp, to: path)
        try fileSystem.syncDirectory(paths.index)
    }

    /// Opens a segment's index file and checks its footer.
    static func openIndexFile(_ segmentID: UInt32, paths: StorePaths, storeID: [UInt8], fileSystem: any FileSystem, cache: BlockCache) throws -> IndexFile {
        let file = ReclaimableFile(try fileSystem.open(paths.indexFile(segmentID), mode: .readOnly))
        do {
            return try IndexFile(file: file, segmentID: segmentID, storeID: storeID, cache: cache)
        } catch {
            try? file.close()
            throw error
        }
    }

    /// Makes an index file from bytes: written to `index/` when the store may write,
    /// else kept in memory (a read-only open writes nothing).
    static func installIndexBytes(_ bytes: [UInt8], segmentID: UInt32, storeID: [UInt8], paths: StorePaths, fileSystem: any FileSystem,
                                  cache: BlockCache, writable: Bool) throws -> IndexFile {
        if writable {
            try writeIndexFile(bytes, segmentID: segmentID, paths: paths, fileSystem: fileSystem)
            return try openIndexFile(segmentID, paths: paths, storeID: storeID, fileSystem: fileSystem, cache: cache)
        }
        return try IndexFile(file: ByteArrayFile(path: paths.indexFile(segmentID) + " (in memory)", bytes: bytes), segmentID: segmentID, storeID: storeID, cache: cache)
    }

    /// Rebuilds a sealed segment's index file from the segment (FORMAT.md §4.2): any
    /// damage in the segment, or a segment that does not end with a seal frame, is an error.
    /// The scan must also match the segment's seal frame and manifest entry (§4.2).
    ///
    /// A store that may write streams the file through scratch sorters of `sortBatch`
    /// items (`IndexFileRebuild`), so a segment of any size is rebuilt in bounded
    /// memory; a read-only open builds it in memory and keeps it there.
    static func rebuildIndexFile(segment file: any StorageFile, info: Manifest.SegmentInfo, storeID: [UInt8], paths: StorePaths, fileSystem: any FileSystem,
                                 cache: BlockCache, writable: Bool, sortBatch: Int = LogStoreOptions().bulkSortBatch) throws -> (IndexFile, SegmentScanner.Result) {
        let segmentID = info.id
        func check(_ scan: SegmentScanner.Result) throws {
            if let damage = scan.damage {
                throw StrataError(.corrupt, "sealed segment is damaged: \(damage.reason)", path: file.path, offset: damage.offset)
            }
            guard scan.sealed else {
                throw StrataError(.corrupt, "sealed segment does not end with a seal frame: it lost its tail", path: file.path, offset: scan.validEnd)
            }
            try checkSealedScan(scan, info: info, path: file.path)
        }
        guard writable else {
            let (bytes, scan) = try IndexFileBuilder.scanning(file, segmentID: segmentID, storeID: storeID)
            try check(scan)
            return (try installIndexBytes(bytes, segmentID: segmentID, storeID: storeID, paths: paths, fileSystem: fileSystem, cache: cache, writable: false), scan)
        }
        let path = paths.indexFile(segmentID)
        let temp = path + ".tmp"
        let rebuild = IndexFileRebuild(fileSystem: fileSystem, scratchBase: paths.index + "/" + StorePaths.number(segmentID) + ".rebuild", sortBatch: sortBatch)
        let scan: SegmentScanner.Result
        do {
            scan = try rebuild.rebuild(file, segmentID: segmentID, storeID: storeID, to: temp)
            try check(scan)
        } catch {
            try? fileSystem.remove(temp)
            throw error
        }
        try fileSystem.rename(temp, to: path)
        try fileSystem.syncDirectory(paths.index)
        return (try openIndexFile(segmentID, paths: paths, storeID: storeID, fileSystem: fileSystem, cache: cache), scan)
    }

    /// Runs an index read under the state lock; when an index file turns out damaged,
    /// rebuilds it from its segment with a warning and runs the read again.
    func readIndex<T>(_ body: (inout State) throws -> T) throws -> T {
        var repaired = Set<UInt32>()
        while true {
            do {
                return try state.withLock { s in
                    if s.isClosed { throw StrataError(.closed, "the store is closed", path: path) }
                    return try body(&s)
                }
            } catch let damage as IndexFile.Damage {
                guard !repaired.contains(damage.segmentID) else { throw damage.error }
                repaired.insert(damage.segmentID)
                try repairIndexFile(damage)
            }
        }
    }

    /// Runs `body` (which reads index files outside the state lock); when an index file
    /// turns out damaged, rebuilds it from its segment and runs `body` again.
    func repairingIndex<T>(_ body: () throws -> T) throws -> T {
        var repaired = Set<UInt32>()
        while true {
            do {
                return try body()
            } catch let damage as IndexFile.Damage {
                // A store closed during the read closed the file under it: no damage.
                if state.withLock({ $0.isClosed }) { throw StrataError(.closed, "the store is closed", path: path) }
                guard repaired.insert(damage.segmentID).inserted else { throw damage.error }
                try repairIndexFile(damage)
            }
        }
    }

    /// `readIndex` for the public reads (`contains`, `keys`, `count`): an index file
    /// that cannot be rebuilt (its segment is damaged too) is logged at error level and
    /// the read throws. It never answers "none" instead: an empty answer would let a
    /// uniqueness check pass or a query miss what the store holds. `verify()` reports
    /// the same damage.
    func readIndexLogging<T>(_ body: (inout State) throws -> T) throws -> T {
        do {
            return try readIndex(body)
        } catch {
            if (error as? StrataError)?.code != .closed {
                logger.error("index read failed", metadata: ["path": "\(path)", "error": "\(error)"])
            }
            throw error
        }
    }

    /// Upgrades a format-1 store to format 2 before its first write (FORMAT.md §12):
    /// the index files built in memory at open are written to `index/`, then a format-2
    /// manifest with the sealed segments' counters replaces the old one, then the hint
    /// files go. A crash before the manifest leaves a format-1 store (the new files are
    /// rebuilt at the next open); after it, a format-2 store. Called with the writer lock held.
    ///
    /// A format-2 store is upgraded to format 3 the same way, with nothing to convert:
    /// the files are the same, and the version says that the store's records may now
    /// carry layout ids (FORMAT.md §11.4), which a format-2 release cannot read.
    func upgradeIfNeeded() throws {
        guard let (counters, manifest, files) = state.withLock({ s in s.legacySealedCounters.map { ($0, s.manifest, s.index.files) } }) else {
            let manifest = state.withLock { $0.manifest }
            guard manifest.version < Format.version else { return }
            var upgraded = manifest
            upgraded.version = Format.version
            upgraded.startVersionFloor(upgradingFrom: manifest.version, lastSequence: state.withLock { $0.lastSequence })
            try writeManifest(upgraded)
            logger.info("upgraded the store to format \(Format.version)", metadata: ["path": "\(path)", "from": "\(manifest.version)"])
            return
        }
        do {
            var written: [IndexFile] = []
            for file in files {
                let bytes = try file.file.readExactly(Int(try file.file.size()), at: 0)
                try Self.writeIndexFile(bytes, segmentID: file.segmentID, paths: paths, fileSystem: fileSystem)
                written.append(try Self.openIndexFile(file.segmentID, paths: paths, storeID: manifest.storeID, fileSystem: fileSystem, cache: blockCache))
            }
            var upgraded = manifest
            upgraded.version = Format.version
            upgraded.startVersionFloor(upgradingFrom: manifest.version, lastSequence: state.withLock { $0.lastSequence })
            upgraded.counters = counters
            upgraded.countersKnown = true
            try writeManifest(upgraded) { s in
                for file in written { s.index.install(file) }
                s.legacySealedCounters = nil
            }
            for info in upgraded.segments { try? fileSystem.remove(paths.hint(info.id)) }
            try? fileSystem.syncDirectory(paths.index)
            logger.info("upgraded the store to format \(Format.version)", metadata: ["path": "\(path)"])
        } catch {
            fail(error)
            throw error
        }
    }

    /// Replaces a damaged index file by one rebuilt from its segment.
    func repairIndexFile(_ damage: IndexFile.Damage) throws {
        logger.warning("damaged index file; rebuilding it from its segment", metadata: ["segment": "\(damage.segmentID)", "error": "\(damage.error)"])
        let (segment, info, storeID, old) = try state.withLock { s -> (any StorageFile, Manifest.SegmentInfo, [UInt8], IndexFile?) in
            guard let file = s.segmentFiles[damage.segmentID], let info = s.manifest.segments.first(where: { $0.id == damage.segmentID }) else { throw damage.error }
            return (file, info, s.manifest.storeID, s.index.file(for: damage.segmentID))
        }
        let writable = !options.readOnly && state.withLock { $0.failure == nil }
        let (rebuilt, _) = try indexRepairGate.withLock { _ in
            try Self.rebuildIndexFile(segment: segment, info: info, storeID: storeID, paths: paths, fileSystem: fileSystem, cache: blockCache, writable: writable,
                                      sortBatch: options.bulkSortBatch)
        }
        state.withLock { s in
            // Only if the segment is still live and still has the damaged file.
            if let current = s.index.file(for: damage.segmentID), current === old {
                s.index.install(rebuilt)
                if !writable { s.indexFilesRebuiltInMemory.insert(damage.segmentID) }
            }
        }
    }
}
