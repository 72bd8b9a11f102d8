extension LogStore {
    /// Seals the active segment and starts a new one (FORMAT.md §4.3):
    /// 1. append a seal frame and fsync; 2. write the overlay as the segment's index
    /// file; 3. create the next segment, fsync it and its directory; 4. swap the
    /// manifest, whose counters now cover every segment but the new, empty one. A crash before 4
    /// leaves the old segment listed as active but ending in a seal frame; open
    /// finishes the roll. Any failure makes the store read-only, because appending
    /// after a seal frame would hide the appended commits from recovery.
    func roll(_ w: inout WriterState, bulk: BulkSeal? = nil) throws {
        do {
            try finishRoll(&w, alreadySealed: false, bulk: bulk)
        } catch StrataError.Code.limitExceeded {
            // Segment ids are exhausted (a damaged manifest): nothing was written, the
            // active segment stays active, and the store stays writable.
            throw StrataError(.limitExceeded, "cannot start a new segment: segment ids are exhausted (nextSegmentID is \(state.withLock { $0.manifest.nextSegmentID }))",
                              path: paths.manifest, context: ["limit": "segment id", "field": "nextSegmentID"])
        } catch {
            fail(error)
            throw error
        }
    }

    /// - Parameter bulk: a bulk commit's segment (`commit(chunks:)`), whose index file
    ///   is already written beside its final name and whose transaction becomes
    ///   visible with it; nil for a segment indexed by the overlay.
    func finishRoll(_ w: inout WriterState, alreadySealed: Bool, bulk: BulkSeal? = nil) throws {
        guard let file = w.segmentFile else { return }
        try upgradeIfNeeded()
        let oldID = w.segmentID
        // The new id first: when ids are exhausted the roll stops before the seal,
        // which could not be taken back.
        var probe = state.withLock { $0.manifest }
        _ = try probe.allocateSegmentID()
        if !alreadySealed {
            try syncBlobs(&w)
            let frame = Self.sealFrame(min: w.segmentMinSequence == .max ? 0 : w.segmentMinSequence, max: w.segmentMaxSequence)
            try file.write(frame, at: w.segmentEnd)
            w.segmentEnd += Int64(frame.count)
        }
        // Synced whoever wrote the seal: a roll that open finishes may follow a writer
        // killed before its fsync, with the seal and the commits before it in the page
        // cache alone, and the roll vouches for every commit of the segment it seals.
        w.segmentDirty = true
        try syncSegment(&w)
        var manifest = state.withLock { $0.manifest }
        let minSequence = w.segmentMinSequence == .max ? 0 : w.segmentMinSequence
        if let bulk {
            try fileSystem.rename(bulk.indexPath, to: paths.indexFile(oldID))
            try fileSystem.syncDirectory(paths.index)
        } else {
            let (contents, recordBytes) = state.withLock { s in (s.index.overlay.sortedContents(), s.recordBytesBySegment[oldID] ?? 0) }
            try Self.writeIndexFile(segmentID: oldID, paths: paths, fileSystem: fileSystem) { sink in
                try IndexFileBuilder.encode(entries: contents.entries, terms: contents.terms, segmentID: oldID, storeID: manifest.storeID,
                                            minSequence: minSequence, maxSequence: w.segmentMaxSequence, recordBytes: recordBytes,
                                            segmentLength: w.segmentEnd, sink: sink)
            }
        }
        let indexFile = try Self.openIndexFile(oldID, paths: paths, storeID: manifest.storeID, fileSystem: fileSystem, cache: blockCache)

        let newID = try manifest.allocateSegmentID()
        let newFile = try Self.createFile(paths.segment(newID), magic: Format.segmentMagic, id: newID, storeID: manifest.storeID, fileSystem: fileSystem)
        try fileSystem.syncDirectory(paths.segments)
        if let i = manifest.segments.firstIndex(where: { $0.id == oldID }) {
            manifest.segments[i].state = .sealed
            manifest.segments[i].minSequence = minSequence
            manifest.segments[i].maxSequence = max(manifest.segments[i].maxSequence, w.segmentMaxSequence)
        }
        manifest.segments.append(.init(id: newID, state: .active, minSequence: 0, maxSequence: 0))
        manifest.counters = bulk?.counters ?? state.withLock { $0.index.counters }
        // Blob files are not restricted: a staging store counts its owner's blob files.
        manifest.counters.liveBytesBySegment = manifest.counters.liveBytesBySegment.filter { id, _ in manifest.segments.contains { $0.id == id } }
        manifest.countersKnown = true
        // The overlay becomes the index file in one step for readers, with the manifest.
        // The old segment's handle stays for readers (closing it under a reader would
        // fail its read); it is closed when the last reference goes.
        try writeManifest(manifest) { s in
            s.segmentFiles[newID] = newFile
            s.lastCommitEnd = LogPoint(segment: newID, end: Int64(Format.segmentHeaderSize))
            s.index.install(indexFile)
            s.index.overlay = IndexOverlay()
            if let bulk {
                s.index.counters = bulk.counters
                s.recordBytesBySegment[oldID] = bulk.recordBytes
                s.lastSequence = max(s.lastSequence, bulk.sequence)
                for blob in bulk.blobs { s.releasePendingBlob(blob) }
            }
        }
        w.segmentID = newID
        w.segmentFile = newFile
        w.segmentEnd = Int64(Format.segmentHeaderSize)
        w.segmentMinSequence = .max
        w.segmentMaxSequence = 0
        w.segmentDirty = false
        // Every commit of the sealed segment is durable (its seal was synced above, or
        // before a crash that open finishes).
        groupCommit.reset(file: newFile, durable: LogPoint(segment: newID, end: w.segmentEnd))
        logger.info("sealed segment", metadata: ["segment": "\(oldID)", "next": "\(newID)"])
    }

    /// A seal frame (FORMAT.md §3.5) recording a segment's min and max sequence.
    static func sealFrame(min: UInt64, max: UInt64) -> [UInt8] {
        var seal = ByteWriter(capacity: 16)
        seal.u64(min)
        seal.u64(max)
        var frame: [UInt8] = []
        FrameCodec.append(type: .seal, payload: seal.bytes, to: &frame)
        return frame
    }

    /// Seals the active blob file and starts a new one (FORMAT.md §5.4).
    func rollBlobFile(_ w: inout WriterState) throws {
        var manifest = state.withLock { $0.manifest }
        let newID: UInt32
        do {
            newID = try manifest.allocateBlobID()
        } catch {
            // Nothing was written: the active blob file stays active, the store writable.
            throw StrataError(.limitExceeded, "cannot start a new blob file: blob file ids are exhausted (nextBlobID is \(manifest.nextBlobID))",
                              path: paths.manifest, context: ["limit": "blob file id", "field": "nextBlobID"])
        }
        do {
            try syncBlobs(&w)
            let newFile = try Self.createFile(paths.blob(newID), magic: Format.blobMagic, id: newID, storeID: manifest.storeID, fileSystem: fileSystem)
            try fileSystem.syncDirectory(paths.blobs)
            if let i = manifest.blobFiles.firstIndex(where: { $0.id == w.blobID }) { manifest.blobFiles[i].state = .sealed }
            manifest.blobFiles.append(.init(id: newID, state: .active))
            try writeManifest(manifest) { $0.blobFiles[newID] = newFile }
            w.blobID = newID
            w.blobFile = newFile
            w.blobEnd = Int64(Format.blobHeaderSize)
            w.blobDirty = false
        } catch {
            fail(error)
            throw error
        }
    }

    /// Seals the active segment now (compaction calls it so that every record is in a
    /// sealed segment).
    public func sealActiveSegment() throws {
        _ = try sealActiveSegmentTimed()
    }

    /// ``sealActiveSegment()``, returning how long it held the writer lock: the pause
    /// it made commits wait, which a compaction reports.
    func sealActiveSegmentTimed() throws -> Duration {
        try holdingWriter { w in
            try checkWritable()
            try upgradeIfNeeded()
            guard w.segmentEnd > Int64(Format.segmentHeaderSize) else { return }
            try roll(&w)
        }.held
    }

    /// Runs `body` under the writer lock and returns its result with how long it held
    /// the lock: what commits waited for it.
    func holdingWriter<T>(_ body: (inout WriterState) throws -> T) throws -> (value: T, held: Duration) {
        try writer.withLock { w in
            let start = ContinuousClock.now
            let value = try body(&w)
            return (value, ContinuousClock.now - start)
        }
    }
}
