import Logging

extension LogStore {
    /// Creates, in `staging/` inside this store, an empty store that a migration fills
    /// with the new version of every object (FORMAT.md §10). It shares this store's id,
    /// numbers its files after this store's, and may reference this store's blob files,
    /// so blobs are carried into it by reference, never copied.
    ///
    /// A staging store may make a staging store of its own: a staged plan runs stage
    /// after stage this way, each reading the previous one, and only the last is
    /// swapped into the real store, so that an error in any stage leaves the store as
    /// it was (not at an intermediate version).
    ///
    /// Nothing of this store changes until `adoptStaging(_:)`; a crash before then
    /// leaves the staging directory, which the next open removes.
    ///
    /// `overlayEntryLimit` bounds the staging store's overlay (nil: this store's limit),
    /// so that a migration can keep it inside its memory budget.
    package func makeStagingStore(overlayEntryLimit: Int? = nil) throws -> LogStore {
        try checkWritable()
        let (manifest, blobFiles, isStaging, carried) = state.withLock { ($0.manifest, $0.blobFiles, $0.isStaging, $0.carriedBlobPaths) }
        try fileSystem.remove(paths.staging)
        var options = LogStoreOptions()
        options.durability = .none // made durable as a whole before the swap
        options.segmentSizeLimit = self.options.segmentSizeLimit
        options.blockSize = self.options.blockSize
        options.compressRecords = self.options.compressRecords
        options.overlayEntryLimit = max(1, overlayEntryLimit ?? self.options.overlayEntryLimit)
        // One cache for the owner and its staging store: a migration's memory is one
        // cache (blocks of each store keyed apart, `LogStore.cacheNamespace`), not two.
        let staging = try LogStore.open(
            at: paths.staging, options: options, fileSystem: fileSystem, logger: logger,
            identity: Identity(storeID: manifest.storeID, firstSegmentID: manifest.nextSegmentID, firstBlobID: manifest.nextBlobID),
            cache: blockCache)
        // A staging store's own blob files are not its owner's yet: the next stage
        // carries them by path, to be moved in at the swap.
        var carry = carried
        if isStaging {
            for info in manifest.blobFiles { carry[info.id] = paths.blob(info.id) }
        }
        staging.state.withLock { s in
            s.isStaging = true
            s.carriedBlobPaths = carry
            for (id, file) in blobFiles where s.blobFiles[id] == nil {
                s.blobFiles[id] = file
                s.foreignBlobFiles.insert(id)
            }
        }
        return staging
    }

    /// Runs `body` with the block cache — shared with every staging store made from this
    /// store — held to `bytes` (never above `LogStoreOptions.blockCacheBytes`, nor above
    /// the limit of a call this one runs inside), then gives the cache the limit it had
    /// back (its whole budget, outside another call). A migration counts the cache inside its memory
    /// budget this way: the blocks it reads stream past once, so a small cache costs it
    /// little, and its peak does not rise by a full cache once the store outgrows it.
    package func withBlockCacheLimited<T>(to bytes: Int, _ body: () throws -> T) rethrows -> T {
        // Nested, the inner limit holds inside (never above the outer one) and the
        // outer one comes back after.
        let outer = blockCache.currentLimit
        blockCache.limit(to: min(bytes, outer))
        defer { blockCache.limit(to: outer) }
        return try body()
    }

    /// Replaces this store's contents with `staging`'s, atomically at the manifest
    /// rename: the staging files move into place (unlisted, so a crash leaves them as
    /// leftovers), then one manifest names them, this store's blob files, and the
    /// staging store's metadata. This store is closed afterwards; reopen it.
    package func adoptStaging(_ staging: LogStore) throws {
        // Its last segment is sealed first, whatever its size (its index file written
        // from the overlay in memory): left active, the store's reopen after the swap
        // would replay it record by record.
        try staging.sealActiveSegment()
        try staging.sync()
        let (stagingManifest, carriedBlobs) = staging.state.withLock { ($0.manifest, $0.carriedBlobPaths) }
        try staging.close()
        let stagingPaths = StorePaths(staging.path)
        try writer.withLock { _ in
            try checkWritable()
            do {
                for info in stagingManifest.segments {
                    try fileSystem.rename(stagingPaths.segment(info.id), to: paths.segment(info.id))
                    if fileSystem.exists(stagingPaths.indexFile(info.id)) {
                        try fileSystem.rename(stagingPaths.indexFile(info.id), to: paths.indexFile(info.id))
                    }
                }
                // A staging blob file holds only what the migration wrote anew (blobs it
                // carried stay where they are); one with nothing in it is not kept.
                // So does one an earlier stage of a chained migration wrote.
                var movedBlobs: [UInt32] = []
                let own = stagingManifest.blobFiles.map { ($0.id, stagingPaths.blob($0.id)) }
                let carried = carriedBlobs.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
                for (id, origin) in carried + own {
                    let file = try fileSystem.open(origin, mode: .readOnly)
                    let size = try file.size()
                    // `staging.sync()` made its own files durable, not an earlier stage's.
                    if carriedBlobs[id] != nil && size > Int64(Format.blobHeaderSize) { try file.sync() }
                    try file.close()
                    guard size > Int64(Format.blobHeaderSize) else { continue }
                    try fileSystem.rename(origin, to: paths.blob(id))
                    movedBlobs.append(id)
                }
                try fileSystem.syncDirectory(paths.segments)
                try fileSystem.syncDirectory(paths.index)
                try fileSystem.syncDirectory(paths.blobs)
                var manifest = state.withLock { $0.manifest }
                let replaced = manifest.segments.map(\.id).filter { id in !stagingManifest.segments.contains { $0.id == id } }
                manifest.segments = stagingManifest.segments
                // Sequences never go back, across a swap too: the staging store numbered
                // its transactions from 1, and a token or `PendingCommit` of this store
                // must never name a later transaction. The active segment's bound
                // carries the floor (FORMAT.md §10).
                let floor = state.withLock { $0.lastSequence }
                if let active = manifest.segments.lastIndex(where: { $0.state == .active }) {
                    manifest.segments[active].maxSequence = max(manifest.segments[active].maxSequence, floor)
                }
                let stagingBlobs = movedBlobs.map { Manifest.BlobFileInfo(id: $0, state: .sealed) }
                manifest.blobFiles = manifest.blobFiles.filter { $0.state == .sealed } + stagingBlobs + manifest.blobFiles.filter { $0.state == .active }
                manifest.nextSegmentID = max(manifest.nextSegmentID, stagingManifest.nextSegmentID)
                manifest.nextBlobID = max(manifest.nextBlobID, stagingManifest.nextBlobID)
                manifest.metadata = stagingManifest.metadata
                manifest.metadata[Manifest.retiredKey] = nil
                // The replaced segments are deleted after the swap: open must know them
                // for garbage if that does not finish (FORMAT.md §6.3).
                manifest.retire(segments: replaced, blobFiles: [], isPresent: { _, _ in false })
                // The staging store counted every blob it references, this store's own
                // blob files included; its sealed segments' counters become this store's.
                manifest.version = Format.version
                // No version from before the swap is left to read as of (FORMAT.md §6.3).
                manifest.metadata[Manifest.versionFloorKey] = nil
                manifest.raiseVersionFloor(to: floor + 1, lastSequence: floor)
                manifest.counters = stagingManifest.counters
                manifest.countersKnown = true
                manifest.generation = try Checked.successor(of: manifest.generation, "manifest generation", path: paths.manifest)
                try ManifestWriter(fileSystem: fileSystem, paths: paths).write(manifest)
            } catch {
                fail(error)
                throw error
            }
        }
        logger.info("migration swapped in", metadata: ["path": "\(path)", "segments": "\(stagingManifest.segments.map(\.id))"])
        try close()
        // The old segments are no longer named; the next open would remove them anyway.
        let keep = Set(stagingManifest.segments.map(\.id))
        if let names = try? fileSystem.contentsOfDirectory(paths.segments) {
            for name in names {
                if let id = StorePaths.parseNumber(name, suffix: ".seg"), !keep.contains(id) { try? fileSystem.remove(paths.segment(id)); try? fileSystem.remove(paths.indexFile(id)); try? fileSystem.remove(paths.hint(id)) }
            }
        }
        try? fileSystem.remove(paths.staging)
    }

    /// Deletes the staging store (and any staging store inside it) after a failed
    /// migration; close them first. This store is untouched.
    package func discardStaging() {
        try? fileSystem.remove(paths.staging)
    }
}

extension LogStore {
    /// A scratch file inside this store's directory, through the file-system seam (a
    /// migration's id maps live in its staging store and go with it).
    package func createScratchFile(_ name: String) throws -> any StorageFile {
        try fileSystem.remove(paths.root + "/" + name)
        return try fileSystem.open(paths.root + "/" + name, mode: .create)
    }
}
