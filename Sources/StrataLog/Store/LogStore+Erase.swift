extension LogStore {
    /// Replaces everything the store holds with an empty store under a new store id,
    /// while this store holds the write lock, and returns the empty store, open (this
    /// one is closed). For a store that must start over — the object layer's
    /// `deleteStoreIfMigrationNeeded`, Realm's `deleteRealmIfMigrationNeeded`.
    ///
    /// Only the store's own files go: the segments, blob files and hint files the
    /// manifest lists, and the manifest itself, replaced. Anything else in the directory
    /// stays. The order keeps a crash safe (FORMAT.md §10.1): the new empty segment and
    /// blob file are created first (numbered after the manifest's ids, so leftovers if
    /// a crash comes), then one atomic manifest rename switches to them, naming the old
    /// files in its retired list, then the old files are deleted (retired by then, so
    /// the next open removes what a crash left). A crash leaves the old store or the
    /// empty one, never a mixture.
    ///
    /// ```swift
    /// let empty = try store.replaceWithEmptyStore()
    /// ```
    ///
    /// - Throws: `.readOnly`, `.closed`, `.io`; on an error before the manifest rename the
    ///   store is as it was.
    package func replaceWithEmptyStore() throws -> LogStore {
        let old = try writer.withLock { w -> Manifest in
            try checkWritable()
            let old = state.withLock { $0.manifest }
            var fresh = Manifest(storeID: Self.randomStoreID())
            // New files are numbered after the old ones, so no name is reused while both exist.
            fresh.nextSegmentID = old.nextSegmentID
            fresh.nextBlobID = old.nextBlobID
            fresh.generation = try Checked.successor(of: old.generation, "manifest generation", path: paths.manifest)
            // The old files are deleted after the switch: open must know them for
            // garbage if that does not finish (FORMAT.md §6.3), with any earlier
            // retired file still present.
            fresh.metadata[Manifest.retiredKey] = old.metadata[Manifest.retiredKey]
            fresh.retire(segments: old.segments.map(\.id), blobFiles: old.blobFiles.map(\.id)) { id, isBlob in
                fileSystem.exists(isBlob ? paths.blob(id) : paths.segment(id))
            }
            let segment = try fresh.allocateSegmentID()
            let blob = try fresh.allocateBlobID()
            do {
                try Self.createFile(paths.segment(segment), magic: Format.segmentMagic, id: segment, storeID: fresh.storeID, fileSystem: fileSystem).close()
                try Self.createFile(paths.blob(blob), magic: Format.blobMagic, id: blob, storeID: fresh.storeID, fileSystem: fileSystem).close()
                try fileSystem.syncDirectory(paths.segments)
                try fileSystem.syncDirectory(paths.blobs)
                fresh.segments = [.init(id: segment, state: .active, minSequence: 0, maxSequence: 0)]
                fresh.blobFiles = [.init(id: blob, state: .active)]
                try ManifestWriter(fileSystem: fileSystem, paths: paths).write(fresh)
            } catch {
                try? fileSystem.remove(paths.segment(segment))
                try? fileSystem.remove(paths.blob(blob))
                throw error
            }
            // The old active files are gone once the manifest is: nothing to sync at close.
            w.segmentFile = nil
            w.blobFile = nil
            w.segmentDirty = false
            w.blobDirty = false
            return old
        }
        for info in old.segments {
            try fileSystem.remove(paths.segment(info.id))
            try fileSystem.remove(paths.hint(info.id))
        }
        for info in old.blobFiles { try fileSystem.remove(paths.blob(info.id)) }
        try fileSystem.syncDirectory(paths.segments)
        try fileSystem.syncDirectory(paths.blobs)
        try fileSystem.syncDirectory(paths.index)
        logger.warning("replaced the store with an empty one", metadata: [
            "path": "\(path)", "segments": "\(old.segments.count)", "blobFiles": "\(old.blobFiles.count)",
        ])
        try close()
        return try LogStore.open(at: path, options: options, fileSystem: fileSystem, logger: logger)
    }
}
