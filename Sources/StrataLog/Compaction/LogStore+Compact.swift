extension LogStore {
    /// Rewrites the live versions of segments with garbage into new segments, in
    /// groups of about `options.compactionBatchBytes`, swapping the manifest after each
    /// group and then deleting the old files (FORMAT.md §8). Blob files whose garbage
    /// share exceeds the threshold are collected the same way: live blobs move to a
    /// new blob file and the records that reference them are rewritten.
    ///
    /// Readers keep working throughout; writers wait only for each manifest swap and
    /// for the seal of the active segment when a pass starts with it. A crash at any point
    /// leaves a store that opens with all its data: either the old files or the new
    /// ones are named by the manifest.
    ///
    /// - Parameter force: seal the active segment first, and compact every sealed
    ///   segment and blob file with any garbage. Unforced, the active segment is
    ///   sealed and compacted only when its own garbage share passes the threshold
    ///   (without a history retention), when it may hold records of older layouts, or
    ///   when blob files are collected; otherwise it is left to fill.
    @discardableResult
    public func compact(force: Bool = false) throws -> CompactionReport {
        try compact(force: force, bytesPerSecond: options.compactionBytesPerSecond)
    }

    /// ``compact(force:)`` reading at most `bytesPerSecond` bytes of records a second
    /// (nil: as fast as it goes), so that a service's requests keep most of the disk.
    @discardableResult
    public func compact(force: Bool, bytesPerSecond: Int?) throws -> CompactionReport {
        try compact(force: force, bytesPerSecond: bytesPerSecond, cancellation: nil)
    }

    /// ``compact(force:bytesPerSecond:)`` that `cancellation` can stop part-way.
    @discardableResult
    package func compact(force: Bool, bytesPerSecond: Int?, cancellation: CompactionCancellation?) throws -> CompactionReport {
        // Checked once `compactionRunning` is held: a close that stopped compaction
        // before then has either waited for this one or set the flag this check sees.
        try compactionGate.withLock { _ in
            try compactionRunning.withLock { _ in
                try checkWritable()
                try checkCompactionGoesOn(cancellation)
                do {
                    return try runCompaction(force: force, bytesPerSecond: bytesPerSecond, cancellation: cancellation)
                } catch let error as StrataError where error.code == .closed {
                    logger.info("compaction stopped: the store is closing; the groups already swapped in stay", metadata: ["error": "\(error)"])
                    throw error
                } catch is CancellationError {
                    logger.info("compaction cancelled; the groups already swapped in stay")
                    throw CancellationError()
                } catch {
                    logger.warning("compaction failed; the store keeps its previous files", metadata: ["error": "\(error)"])
                    throw error
                }
            }
        }
    }

    /// Stops a compaction under way at the next frame it reads (or within a few
    /// milliseconds of a throttle's sleep), and refuses later ones, with `.closed`: a
    /// store about to close does not wait for a whole pass. Its outputs not yet swapped
    /// in are leftovers that the next open removes; the groups already swapped stay.
    /// Returns at once (the object layer's async close calls it on the caller's
    /// thread); ``close()`` then waits for the compaction to stop.
    package func stopCompaction() {
        compactionStopped.store(true, ordering: .relaxed)
    }

    /// Throws `.closed` once ``stopCompaction()`` was called, and `CancellationError`
    /// once `cancellation` was cancelled.
    func checkCompactionGoesOn(_ cancellation: CompactionCancellation? = nil) throws {
        if compactionStopped.load(ordering: .relaxed) {
            throw StrataError(.closed, "compaction stopped: the store is closing", path: path)
        }
        if cancellation?.isCancelled == true { throw CancellationError() }
    }

    func allocateFileID(blob: Bool) throws -> UInt32 {
        try writer.withLock { _ in
            try state.withLock { s in blob ? try s.manifest.allocateBlobID() : try s.manifest.allocateSegmentID() }
        }
    }

    private func runCompaction(force: Bool, bytesPerSecond: Int?, cancellation: CompactionCancellation?) throws -> CompactionReport {
        var report = CompactionReport()
        let started = ContinuousClock.now
        // Every version newer than this is kept, and each key's newest at or below it
        // (FORMAT.md §8): read once, as the retention only moves forward.
        let asked = try versionRetention.withLock { $0 }?(self)
        let retention = asked?.sequence
        let threshold = force ? 0.0 : options.compactionGarbageRatio
        // Roll the active blob file too when it holds enough garbage to collect.
        report.countPause(try holdingWriter { w in
            let live = state.withLock { $0.index.counters.liveBytesByBlobFile[w.blobID] ?? 0 }
            let size = w.blobEnd - Int64(Format.blobHeaderSize)
            guard size > 0, (Double(size) - Double(live)) / Double(size) > threshold else { return }
            try rollBlobFile(&w)
        }.held)
        let collect = try state.withLock { s -> Set<UInt32> in
            var collect = Set<UInt32>()
            for info in s.manifest.blobFiles where info.state == .sealed {
                guard let file = s.blobFiles[info.id] else { continue }
                let size = (try file.size()) - Int64(Format.blobHeaderSize)
                let live = IndexCounters.saturatingSum(s.index.counters.liveBytesByBlobFile[info.id] ?? 0, force ? 0 : s.keptBytesByBlobFile[info.id]?.bytes(below: retention) ?? 0)
                let pinned = (s.pendingBlobFiles[info.id] ?? 0) > 0
                if size > 0 && !pinned && (Double(size) - Double(live)) / Double(size) > threshold { collect.insert(info.id) }
            }
            return collect
        }
        // The active segment is sealed (and so compacted) when asked to take everything,
        // when its own garbage passes the threshold (a few keys written over and over
        // leave all their garbage there, and it rolls only at its size limit), when it
        // may hold records the rewriter must write anew (below the rewrite mark), or
        // when blob files are collected (it may reference their live blobs, which move
        // only with records that are rewritten). Otherwise it is left to fill: sealing
        // it writes its index file under the writer lock, a pause that follows its
        // keys (at most `overlayEntryLimit`, as a roll's), and the sealed segments'
        // garbage is reclaimed without it.
        let activeID = writer.withLock { $0.segmentID }
        let rewriting = recordRewriter.withLock { $0 } != nil ? rewriteBelow.withLock { $0 } : nil
        let activeGarbage = state.withLock { s -> Bool in
            // With a retention (history tracked), the active segment's superseded
            // versions are the newest, mostly above it and kept: it is left to fill.
            guard retention == nil else { return false }
            let total = s.recordBytesBySegment[activeID] ?? 0
            let live = s.index.counters.liveBytesBySegment[activeID] ?? 0
            return total > 0 && (Double(total) - Double(live)) / Double(total) > threshold
        }
        if force || activeGarbage || !collect.isEmpty || rewriting.map({ activeID < $0 }) == true {
            report.countPause(try sealActiveSegmentTimed())
        }

        let chosen = state.withLock { s -> (inputs: [UInt32], blobs: Set<UInt32>) in
            var inputs = Set<UInt32>()
            for info in s.manifest.segments where info.state == .sealed {
                // Every version of a segment newer than the retention is kept: it has
                // nothing to reclaim, whatever its garbage.
                if let retention, info.minSequence > retention { continue }
                let total = s.recordBytesBySegment[info.id] ?? 0
                let live = IndexCounters.saturatingSum(s.index.counters.liveBytesBySegment[info.id] ?? 0, force ? 0 : s.keptBytesBySegment[info.id]?.bytes(below: retention) ?? 0)
                if total > 0 && (Double(total) - Double(live)) / Double(total) > threshold { inputs.insert(info.id) }
            }
            // Segments that may hold records the rewriter writes anew (older layouts)
            // are rewritten whatever their garbage, so that none is left behind.
            if let below = rewriting {
                for info in s.manifest.segments where info.state == .sealed && info.id < below { inputs.insert(info.id) }
            }
            let sealed = Set(s.manifest.segments.filter { $0.state == .sealed }.map(\.id))
            return (inputs.intersection(sealed).sorted(), collect)
        }
        var inputs = Set(chosen.inputs)
        // Segments holding current versions that reference a collected blob file: found
        // by streaming the index files, not from a per-key table.
        if !chosen.blobs.isEmpty { inputs.formUnion(try repairingIndex { try segmentsReferencing(chosen.blobs) }) }
        // Superseded versions a retention keeps may reference a collected file too, in
        // any sealed segment: the index does not list them, so every segment is read.
        if !chosen.blobs.isEmpty, retention != nil {
            inputs.formUnion(state.withLock { s in s.manifest.segments.filter { $0.state == .sealed }.map(\.id) })
        }
        let sealedNow = state.withLock { s in Set(s.manifest.segments.filter { $0.state == .sealed }.map(\.id)) }
        let plan = (inputs: inputs.intersection(sealedNow).sorted(), blobs: chosen.blobs)
        guard !plan.inputs.isEmpty || !plan.blobs.isEmpty else { return report }
        logger.info("compaction starting", metadata: ["segments": "\(plan.inputs)", "blobFiles": "\(plan.blobs.sorted())"])

        var throttle = CompactionThrottle(bytesPerSecond: bytesPerSecond)
        let output = CompactionOutput(store: self)
        var finished = false
        defer { if !finished { output.abandon() } }
        let inputSet = Set(plan.inputs)
        var group: [UInt32] = []
        var groupBytes: Int64 = 0
        var groupKeys: UInt64 = 0
        // A group's relocations (one per record kept) are held until its swap: groups
        // end at a key count as well as at a byte count, since 64 MiB of small records
        // is over a million of them.
        let keysPerGroup = UInt64(max(1, options.overlayEntryLimit)) * 4
        for (position, id) in plan.inputs.enumerated() {
            let (file, keys) = try state.withLock { s -> (any StorageFile, UInt64) in
                guard let file = s.segmentFiles[id] else { throw StrataError(.corrupt, "segment not open", path: paths.segment(id)) }
                return (file, s.index.file(for: id)?.footer.entryCount ?? 0)
            }
            group.append(id)
            groupBytes += try file.size()
            groupKeys &+= keys
            if groupBytes >= Int64(options.compactionBatchBytes) || groupKeys >= keysPerGroup || position == plan.inputs.count - 1 {
                try compactGroup(group, allInputs: inputSet, collecting: plan.blobs, retention: retention, exempt: asked?.exempt, output: output,
                                 throttle: &throttle, cancellation: cancellation, report: &report)
                group = []
                groupBytes = 0
                groupKeys = 0
            }
        }
        if group.isEmpty == false {
            try compactGroup(group, allInputs: inputSet, collecting: plan.blobs, retention: retention, exempt: asked?.exempt, output: output,
                             throttle: &throttle, cancellation: cancellation, report: &report)
        }
        if let blob = output.blob {
            // A collected file's live blobs now sit in `blob`; register it even when no
            // group swapped it in (cannot happen while a group moved a blob, but cheap).
            report.countPause(try holdingWriter { _ in
                var manifest = state.withLock { $0.manifest }
                if !manifest.blobFiles.contains(where: { $0.id == blob.id }) {
                    let active = manifest.blobFiles.firstIndex(where: { $0.state == .active }) ?? manifest.blobFiles.count
                    manifest.blobFiles.insert(.init(id: blob.id, state: .sealed), at: active)
                    try writeManifest(manifest) { $0.blobFiles[blob.id] = blob.file }
                }
            }.held)
        }
        try collectBlobFiles(plan.blobs, retention: retention, rewritten: inputSet.union(output.segmentIDs), report: &report)
        finished = true
        report.duration = ContinuousClock.now - started
        counters.compactions.add(1)
        counters.compactionBytesReclaimed.add(Int(max(0, report.segmentBytesBefore - report.segmentBytesAfter) + report.blobBytesReclaimed))
        logger.info("compaction finished", metadata: ["report": "\(report)"])
        return report
    }

    private func compactGroup(_ group: [UInt32], allInputs: Set<UInt32>, collecting: Set<UInt32>, retention: UInt64?, exempt: Range<RecordKey>?, output: CompactionOutput,
                              throttle: inout CompactionThrottle, cancellation: CompactionCancellation?, report: inout CompactionReport) throws {
        var recordsRewritten = 0
        var tombstonesDropped = 0
        let groupSet = Set(group)
        let rewriter = recordRewriter.withLock { $0 }
        // A transaction's kept records are appended as one transaction, in pieces of
        // at most this many (or `pieceBytes` of them), so that one transaction of a
        // million records (a chunked commit's segment) is never held whole.
        let pieceLimit = max(1, options.overlayEntryLimit)
        // The last commit before the group's records are read, taken with no commit in
        // flight: a copy stays its key's current version unless a later commit wrote the
        // key, and the swap settles those commits only.
        let since = try writer.withLock { _ in try checkWritable(); return state.withLock { $0.lastSequence } }
        // Live blob bytes move with the copies whose references changed (a collected
        // file's blob copied out, a record rewritten in the current layout).
        var blobDelta: [UInt32: Int64] = [:]
        var bytesBefore: Int64 = 0
        // With a retention: for each key written after it, the newest version at or
        // below it the group holds (kept once every segment was read), and the keys
        // copied as their current version with its sequence (the swap tells them from
        // superseded versions kept).
        var older: [RecordKey: (sequence: UInt64, location: RecordLocation, supersededAt: UInt64)] = [:]
        var copiedCurrent: [RecordKey: UInt64] = [:]
        // Tombstones the group dropped: a version below one is not the key's newest at
        // the retention whatever a later commit did (a commit during the step can make
        // the key's older versions look worth keeping after its tombstone was dropped).
        var droppedTombstones: [RecordKey: UInt64] = [:]
        // Blob bytes of kept superseded versions, by the blob file they were moved to.
        var keptBlobBytes: [UInt32: KeptBytes] = [:]
        /// Rewrites a record in the current layout and moves its blobs out of collected
        /// files; a current version's live blob bytes move with it. Returns whether
        /// the record changed.
        @discardableResult
        func carry(_ record: inout Record, live: Bool, supersededAt: UInt64, blobFiles: [UInt32: any StorageFile]) throws -> Bool {
            let original = record.blobs
            var changed = false
            if !record.isTombstone, let rewriter, let rewritten = try rewriter(record) {
                // Same key and sequence: the copy stays the version it was.
                record.value = rewritten.value
                record.blobs = rewritten.blobs
                record.terms = rewritten.terms
                report.recordsReencoded += 1
                changed = true
            }
            for (i, blob) in record.blobs.enumerated() where collecting.contains(blob.file) {
                guard let source = blobFiles[blob.file] else {
                    throw StrataError(.corrupt, "a record of key \(record.key.rawValue) references blob file \(blob.file), which the store does not have",
                                      path: paths.blob(blob.file), context: ["key": "\(record.key.rawValue)"])
                }
                record.blobs[i] = try output.move(blob, from: source)
                report.blobsMoved += 1
                changed = true
                if !live { keptBlobBytes[record.blobs[i].file, default: KeptBytes()].add(IndexCounters.blobBytes(blob), until: supersededAt) }
            }
            if live && record.blobs != original {
                for blob in original { blobDelta[blob.file, default: 0] &-= IndexCounters.blobBytes(blob) }
                for blob in record.blobs { blobDelta[blob.file, default: 0] &+= IndexCounters.blobBytes(blob) }
            }
            return changed
        }
        // Kept across the group: its keys are looked up in log order, mostly ascending,
        // and each index block would otherwise be read and packed again for every run
        // of lookups.
        var lookups = Lookups()
        for id in group {
            let (file, olderElsewhere, blobFiles) = try state.withLock { s -> (any StorageFile, [UInt64], [UInt32: any StorageFile]) in
                guard let file = s.segmentFiles[id] else { throw StrataError(.corrupt, "segment not open", path: paths.segment(id)) }
                // Min sequences of the other sealed segments not being rewritten now: a
                // tombstone must stay while any of them may hold an older version.
                let others = s.manifest.segments.filter { $0.state == .sealed && !groupSet.contains($0.id) }.map(\.minSequence)
                return (file, others, s.blobFiles)
            }
            let size = try file.size()
            report.segmentBytesBefore += size
            bytesBefore += size
            var keep = KeptRecords()
            var keepSequence: UInt64?
            var keptUntil: UInt64 = 0
            // Where in `keep` each kept superseded version of the piece lies, and those a
            // later write of the same transaction replaced (only its last is a version).
            var retainedAt: [RecordKey: Int] = [:]
            var replaced = Set<Int>()
            // Locations the index names for a version this segment holds twice (a key
            // written twice in one transaction: the later record is the current one),
            // not met yet: each must be met before the segment ends.
            var awaited: [RecordLocation: RecordKey] = [:]
            func flush() throws {
                defer {
                    keep.removeAll()
                    retainedAt.removeAll(keepingCapacity: true)
                    replaced.removeAll(keepingCapacity: true)
                    keptUntil = 0
                }
                guard let sequence = keepSequence, !keep.isEmpty else { return }
                keep.remove(replaced)
                try output.append(keep, sequence: sequence, keptUntil: keptUntil)
                recordsRewritten += keep.count
            }
            // Records come a frame at a time (each frame belongs to one transaction, all
            // of whose records carry its sequence), before the commit frame that closes
            // them: damage anywhere in the segment throws below, before any swap, so
            // nothing copied from it is ever named by a manifest. Each comes as its
            // header and its bytes in the block: one that is dropped, or kept as it is,
            // is never decoded.
            let scan = try SegmentScanner(file: file, segmentID: id, statistics: counters).scanHeaders { records, block in
                try checkCompactionGoesOn(cancellation)
                output.cores.yieldIfDue()
                guard let sequence = records.first?.sequence else { return }
                if sequence != keepSequence {
                    try flush()
                    keepSequence = sequence
                }
                try records.withUnsafeBufferPointer { records in
                    var entries: [IndexEntry?] = []
                    entries.reserveCapacity(records.count)
                    // A frame of a bulk load holds thousands of records: the overlay is
                    // asked for a few at a time.
                    for start in stride(from: 0, to: records.count, by: Self.lookupsPerLock) {
                        let part = start..<min(records.count, start + Self.lookupsPerLock)
                        output.cores.yieldIfDue()
                        try appendCurrentEntries(of: part.map { records[$0].header.key }, to: &entries, lookups: &lookups)
                    }
                    var paid = 0
                    for i in records.indices { paid += Int(records[i].location.recordLength) }
                    try throttle.paid(paid, unless: { try checkCompactionGoesOn(cancellation) })
                    var current: [Bool] = []
                    current.reserveCapacity(records.count)
                    for i in records.indices {
                        let header = records[i].header
                        current.append(try crossCheck(key: header.key, sequence: header.sequence, isTombstone: header.isTombstone, location: records[i].location,
                                                      against: entries[i], segment: id, awaited: &awaited, path: file.path))
                    }
                    try block.withUnsafeBytes { bytes in
                        for i in records.indices {
                            let isCurrent = current[i], entry = entries[i]
                            let header = records[i].header, location = records[i].location
                            let key = header.key, version = header.sequence
                            // The retention this key is under: none for keys it exempts.
                            let keepAfter = exempt?.contains(key) == true ? nil : retention
                            if isCurrent {
                                // A tombstone goes once no older version can be left behind it:
                                // none in another segment, none kept for the retention.
                                if header.isTombstone && keepAfter.map({ version <= $0 }) ?? true
                                    && !olderElsewhere.contains(where: { $0 <= version }) {
                                    tombstonesDropped += 1
                                    if keepAfter != nil { droppedTombstones[key] = version }
                                    continue
                                }
                                if retention != nil { copiedCurrent[key] = version }
                            } else {
                                // Superseded (by a later transaction: a record the same one
                                // rewrote is never a version). Kept when newer than the
                                // retention; at or below it, only the newest the group holds
                                // of a key written after it.
                                guard let keepAfter, let entry, entry.sequence > version else { continue }
                                if version <= keepAfter {
                                    if entry.sequence > keepAfter, older[key].map({ $0.sequence <= version }) ?? true {
                                        older[key] = (version, location, entry.sequence)
                                    }
                                    continue
                                }
                            }
                            let supersededAt = entry?.sequence ?? 0
                            if !isCurrent {
                                keptUntil = max(keptUntil, supersededAt)
                                // A key the transaction wrote twice: only its last write is a version.
                                if let earlier = retainedAt[key] { replaced.insert(earlier) }
                                retainedAt[key] = keep.count
                            }
                            let range = Int(location.recordOffset)..<Int(location.recordOffset) + Int(location.recordLength)
                            // Decoded only when the rewriter may write it anew or one of its
                            // blobs may move; kept as bytes when neither happened.
                            if (rewriter != nil && !header.isTombstone) || (header.blobCount > 0 && !collecting.isEmpty) {
                                var reader = ByteReader(block, from: range.lowerBound, to: range.upperBound, path: file.path, baseOffset: Int64(location.frameOffset))
                                var record = try RecordCodec.decode(&reader)
                                if try carry(&record, live: isCurrent, supersededAt: supersededAt, blobFiles: blobFiles) {
                                    try keep.append(record, retained: !isCurrent)
                                    continue
                                }
                            }
                            keep.append(copying: UnsafeRawBufferPointer(rebasing: bytes[range]), header: header, retained: !isCurrent)
                        }
                    }
                }
                // Not at a byte count while the piece holds a superseded version: the
                // transaction may write its key again further on, and only its last
                // write is a version — which the piece could no longer leave out.
                if keep.count >= pieceLimit || (keep.byteCount >= Self.pieceBytes && retainedAt.isEmpty) { try flush() }
            }
            if let damage = scan.damage {
                throw StrataError(.corrupt, "sealed segment is damaged: \(damage.reason)", path: file.path, offset: damage.offset)
            }
            if let missed = awaited.min(by: { $0.key.frameOffset < $1.key.frameOffset }) {
                let (location, key) = (missed.key, missed.value)
                throw StrataError(.corrupt, "the index locates key \(key.rawValue)'s current version at frame \(location.frameOffset) (record \(location.recordOffset), \(location.recordLength) bytes), where the segment holds no record of it",
                                  path: file.path, offset: Int64(location.frameOffset), context: ["key": "\(key.rawValue)"])
            }
            try flush()
            try compactionDidReadSegment.withLock { $0 }?(id)
        }
        // The superseded versions at or below the retention that the step keeps, read
        // back from the group's segments: a transaction per sequence.
        if !older.isEmpty {
            let (segmentFiles, blobFiles) = state.withLock { ($0.segmentFiles, $0.blobFiles) }
            let ordered = older.filter { key, version in droppedTombstones[key].map { version.sequence > $0 } ?? true }
                .sorted { a, b in a.value.sequence != b.value.sequence ? a.value.sequence < b.value.sequence : a.key < b.key }
            var batch = KeptRecords()
            var batchUntil: UInt64 = 0
            func flush() throws {
                guard let sequence = batch.sequence else { return }
                try output.append(batch, sequence: sequence, keptUntil: batchUntil)
                recordsRewritten += batch.count
                batch.removeAll()
                batchUntil = 0
            }
            for (key, version) in ordered {
                if let sequence = batch.sequence, sequence != version.sequence || batch.count >= pieceLimit { try flush() }
                guard let file = segmentFiles[version.location.segment] else {
                    throw StrataError(.corrupt, "segment not open", path: paths.segment(version.location.segment))
                }
                var record = try readRecord(at: version.location, in: file)
                guard record.key == key, record.sequence == version.sequence else {
                    throw StrataError(.corrupt, "the record read back for key \(key.rawValue)'s version \(version.sequence) is \(record.key.rawValue)@\(record.sequence)",
                                      path: file.path, offset: Int64(version.location.frameOffset), context: ["key": "\(key.rawValue)"])
                }
                try carry(&record, live: false, supersededAt: version.supersededAt, blobFiles: blobFiles)
                try batch.append(record, retained: true)
                batchUntil = max(batchUntil, version.supersededAt)
            }
            try flush()
        }
        try output.finish()
        let written = output.takeFinished()

        // The copies that commits since `since` superseded, found for the commits made
        // so far before the swap: the swap, which commits wait for, looks only at the
        // few made after `early.through`.
        let early = try repairingIndex { try keysWritten(after: since, group: groupSet) }
        let current = retention == nil ? nil : copiedCurrent
        var superseded = try supersededCopies(early.keys, after: since, excluding: [], written: written, group: groupSet, copiedCurrent: current)
        // The step dropped versions for commits that superseded them, all appended
        // before its copies were finished: those commits are made durable before the
        // manifest stops naming the group, or a crash that lost one would lose the
        // version it superseded too (what survives would not be a prefix). Outside the
        // writer lock, sharing group commit's fsync; commits after it dropped nothing.
        let durableThrough = try syncAppended()
        // The active segment's records so far, accounted for as open's replay will meet
        // them once the group is swapped out: the swap looks up only later ones.
        let outputIndexes = written.map(\.index)
        let replayed = try repairingIndex { try accountForActiveSegment(nil, swapping: groupSet, for: outputIndexes, limit: .max) }
        // The swap: the manifest names the new segments instead of the group's. Commits
        // wait for it, so it does only what the commits since `early.through` make
        // necessary: the counters of the copies were summed as they were written, and a
        // copy counts as live unless a commit since `since` wrote its key. The counters
        // the manifest keeps cover exactly its sealed segments (FORMAT.md §6.1): those
        // in memory less what open's replay of the active segment adds back, or, when
        // that takes more than a few lookups, those of a roll.
        try compactionWillSwap.withLock { $0 }?(report.steps + 1)
        let pauseStart = ContinuousClock.now
        // Whether the swap fsynced the directory under the lock (see below).
        var namesNewBlobFile = false
        // The group's open files, which the swap stops naming.
        var retiring: [any StorageFile] = []
        try writer.withLock { w in
            try checkWritable()
            // The floor below is format 5's: a store of an older one is upgraded first.
            try upgradeIfNeeded()
            var replay: ActiveSegmentReplay?
            if w.segmentEnd > Int64(Format.segmentHeaderSize) {
                // A damaged index file is not repaired under the writer lock: the roll needs none.
                replay = try? accountForActiveSegment(replayed, swapping: groupSet, for: outputIndexes, limit: Self.swapLookupLimit)
                if replay == nil { try roll(&w) }
            }
            var manifest = state.withLock { $0.manifest }
            // The group's highest sequence must outlive it even when every record that
            // carried it was dropped (a tombstone), or sequences would restart at reopen.
            let groupMax = manifest.segments.filter { groupSet.contains($0.id) }.map(\.maxSequence).max() ?? 0
            manifest.segments.removeAll { groupSet.contains($0.id) }
            var outputs = written.map { Manifest.SegmentInfo(id: $0.id, state: .sealed, minSequence: $0.minSequence, maxSequence: $0.maxSequence) }
            if let last = outputs.indices.last {
                outputs[last].maxSequence = max(outputs[last].maxSequence, groupMax)
            } else if let activeIndex = manifest.segments.firstIndex(where: { $0.state == .active }) {
                manifest.segments[activeIndex].maxSequence = max(manifest.segments[activeIndex].maxSequence, groupMax)
            }
            let active = manifest.segments.firstIndex(where: { $0.state == .active }) ?? manifest.segments.count
            manifest.segments.insert(contentsOf: outputs, at: active)
            // A blob file this manifest names first: from the swap on, a commit can carry
            // a reference into it (an object saved with its photo unchanged), so the
            // rename is made durable before the lock lets one in.
            if let blob = output.blob, !manifest.blobFiles.contains(where: { $0.id == blob.id }) {
                namesNewBlobFile = true
                let activeBlob = manifest.blobFiles.firstIndex(where: { $0.state == .active }) ?? manifest.blobFiles.count
                manifest.blobFiles.insert(.init(id: blob.id, state: .sealed), at: activeBlob)
            }
            // The commits since `early.through`, in the active segment and any sealed
            // since. A copy found superseded already is not taken back twice.
            let late = try keysWritten(after: early.through, group: groupSet).keys
            superseded += try supersededCopies(late, after: early.through, excluding: Set(superseded.map(\.copy.key)),
                                               written: written, group: groupSet, copiedCurrent: current)
            var counters = state.withLock { $0.index.counters }
            for id in group { counters.liveBytesBySegment[id] = nil }
            for w in written { counters.liveBytesBySegment[w.id, default: 0] &+= w.currentBytes }
            for (file, bytes) in blobDelta { counters.liveBytesByBlobFile[file, default: 0] &+= bytes }
            for copy in superseded { copy.unsettle(&counters) }
            manifest.counters = replay?.sealedCounters(counters) ?? counters
            manifest.counters.liveBytesBySegment = manifest.counters.liveBytesBySegment.filter { id, _ in manifest.segments.contains { $0.id == id } }
            // The group's files are deleted after this swap: if that does not finish,
            // open knows them for garbage, not for segments the manifest lost.
            manifest.retire(segments: group, blobFiles: [], isPresent: retiredFileIsPresent)
            // Without a retention the step dropped every version superseded by the
            // commits made durable above, so the store reads as of the last of them at
            // the earliest (FORMAT.md §6.3).
            let last = state.withLock { $0.lastSequence }
            manifest.raiseVersionFloor(to: retention ?? durableThrough, lastSequence: last)
            // Otherwise the directory's fsync, which makes the rename durable, comes after
            // the lock: commits need not wait for it, no commit can depend on what only the
            // new manifest names, and until it a crash brings back the old manifest, whose
            // files are all still there.
            try writeManifest(manifest, syncingDirectory: namesNewBlobFile) { s in
                retiring = group.compactMap { s.segmentFiles[$0] } + s.index.files.filter { groupSet.contains($0.segmentID) }.map(\.file)
                for w in written {
                    s.segmentFiles[w.id] = w.file
                    s.recordBytesBySegment[w.id] = w.recordBytes
                    if w.recordBytes > w.currentBytes { s.keptBytesBySegment[w.id] = KeptBytes(bytes: w.recordBytes - w.currentBytes, until: w.keptUntil) }
                    s.index.install(w.index)
                }
                for (file, kept) in keptBlobBytes { s.keptBytesByBlobFile[file, default: KeptBytes()].add(kept.bytes, until: kept.until) }
                if let blob = output.blob { s.blobFiles[blob.id] = blob.file }
                s.index.remove(segments: groupSet)
                s.index.counters = counters
                for id in group {
                    s.segmentFiles[id] = nil
                    s.recordBytesBySegment[id] = nil
                    s.keptBytesBySegment[id] = nil
                }
            }
        }
        let pause = ContinuousClock.now - pauseStart
        report.countPause(pause)
        report.steps += 1
        do {
            if !namesNewBlobFile { try fileSystem.syncDirectory(paths.root) }
        } catch {
            // Whether the new manifest survives a crash is unknown: the store stops
            // writing (as a failed manifest write makes it), and the old files stay.
            fail(error)
            throw error
        }
        // Old files go only after the manifest no longer names them, durably. Readers
        // holding a handle keep reading the unlinked file until they let go; the last
        // to let go hands it to the reclaimer.
        let handles = removeRetired(group.flatMap { [paths.segment($0), paths.indexFile($0)] })
        syncAfterCleanup(paths.segments)
        retire(retiring, handles: handles)
        retiring = []
        report.segmentsCompacted += group.count
        report.segmentsWritten += written.count
        report.recordsRewritten += recordsRewritten
        report.tombstonesDropped += tombstonesDropped
        var bytesAfter: Int64 = 0
        for w in written { bytesAfter += try w.file.size() }
        report.segmentBytesAfter += bytesAfter
        logger.info("compaction step", metadata: [
            "segments": "\(group)", "written": "\(written.map(\.id))", "bytesBefore": "\(bytesBefore)", "bytesAfter": "\(bytesAfter)",
            "records": "\(recordsRewritten)", "pause": "\(pause)", "step": "\(report.steps)",
        ])
    }

    /// A copy a compaction step wrote whose key a commit wrote again before the step's
    /// swap: its bytes are not live, and the blobs its original referenced are the ones
    /// that commit stopped counting.
    struct SupersededCopy {
        var copy: IndexEntry
        var originalBlobs: [BlobRef]

        /// Takes back what the swap counted for the copy as if it were current.
        func unsettle(_ counters: inout IndexCounters) {
            counters.liveBytesBySegment[copy.location.segment, default: 0] &-= copy.recordBytes
            for blob in copy.blobs { counters.liveBytesByBlobFile[blob.file, default: 0] &-= IndexCounters.blobBytes(blob) }
            for blob in originalBlobs { counters.liveBytesByBlobFile[blob.file, default: 0] &+= IndexCounters.blobBytes(blob) }
        }
    }

    /// What commits after a sequence wrote, as a step gathers it.
    enum WrittenKeys {
        /// Their keys.
        case keys(Set<RecordKey>)
        /// More keys than ``LogStore/compactionWrittenKeysLimit``: the step looks up
        /// each of its copies instead.
        case many
    }

    /// The keys that commits after `since` wrote, and the store's last sequence when
    /// they were gathered (later commits are not among them): the overlay's at one
    /// instant, under the state lock, then those of the sealed files (the group's aside)
    /// it handed out, read outside it. Past the limit it stops gathering: a bulk commit
    /// of millions of keys would otherwise make a set of millions.
    private func keysWritten(after since: UInt64, group: Set<UInt32>) throws -> (keys: WrittenKeys, through: UInt64) {
        let limit = compactionWrittenKeysLimit.withLock { $0 }
        let (fromOverlay, files, through) = state.withLock { s -> ([RecordKey]?, [IndexFile], UInt64) in
            var keys: [RecordKey]? = []
            s.index.overlay.forEachEntry { entry in
                guard entry.sequence > since, keys != nil else { return }
                keys!.append(entry.key)
                if keys!.count > limit { keys = nil }
            }
            return (keys, s.index.files.filter { !group.contains($0.segmentID) && $0.footer.maxSequence > since }, s.lastSequence)
        }
        guard let fromOverlay else { return (.many, through) }
        var keys = Set(fromOverlay)
        struct TooMany: Error {}
        do {
            for file in files {
                try file.forEachEntry { entry in
                    guard entry.sequence > since else { return }
                    keys.insert(entry.key)
                    if keys.count > limit { throw TooMany() }
                }
            }
        } catch is TooMany {
            return (.many, through)
        }
        return (.keys(keys), through)
    }

    /// The copies in `written` whose keys commits after `since` wrote (`keys`), those of
    /// `excluding` aside.
    private func supersededCopies(_ keys: WrittenKeys, after since: UInt64, excluding: Set<RecordKey>, written: [CompactionOutput.Written],
                                  group: Set<UInt32>, copiedCurrent: [RecordKey: UInt64]?) throws -> [SupersededCopy] {
        switch keys {
        case .keys(let keys):
            return try supersededCopies(of: keys.subtracting(excluding), written: written, group: group, copiedCurrent: copiedCurrent)
        case .many:
            // Each copy's key looked up in the index as it stands (the outputs are not
            // in it yet), as the step's walk looks up what it reads: a version newer
            // than `since` supersedes the copy. Only the files sealed since are probed,
            // so under the writer lock this costs the few commits since `since`. The
            // keys checked are the step's own, bounded as the step is.
            var keys = Set<RecordKey>()
            var batch: [RecordKey] = []
            var found: [IndexEntry?] = []
            var lookups = Lookups()
            func settle() throws {
                found.removeAll(keepingCapacity: true)
                try appendCurrentEntries(of: batch, to: &found, lookups: &lookups, newerThan: since)
                for (key, newest) in zip(batch, found) where (newest?.sequence ?? 0) > since { keys.insert(key) }
                batch.removeAll(keepingCapacity: true)
            }
            for output in written {
                try output.index.forEachEntry { entry in
                    guard !excluding.contains(entry.key) else { return }
                    if let copiedCurrent, copiedCurrent[entry.key] != entry.sequence { return }
                    batch.append(entry.key)
                    if batch.count >= Self.currentCheckBatch { try settle() }
                }
            }
            try settle()
            return try supersededCopies(of: keys, written: written, group: group, copiedCurrent: copiedCurrent)
        }
    }

    /// The copies in `written` of `keys`, which commits after the step's `since` wrote.
    private func supersededCopies(of keys: Set<RecordKey>, written: [CompactionOutput.Written], group: Set<UInt32>,
                                  copiedCurrent: [RecordKey: UInt64]?) throws -> [SupersededCopy] {
        guard !keys.isEmpty else { return [] }
        let groupFiles = state.withLock { s in s.index.files.filter { group.contains($0.segmentID) } }
        var found: [SupersededCopy] = []
        for key in keys {
            // With a retention the outputs also hold superseded versions, which were
            // never counted: only a key's current copy is taken back.
            let copies = try written.compactMap { try $0.index.entry(key) }
            let copy: IndexEntry?
            if let copiedCurrent {
                copy = copiedCurrent[key].flatMap { sequence in copies.first { $0.sequence == sequence } }
            } else {
                copy = copies.first
            }
            guard let copy else { continue }
            guard let original = try groupFiles.lazy.compactMap({ try $0.entry(key) }).first(where: { $0.sequence == copy.sequence }) else {
                throw StrataError(.corrupt, "compaction copied version \(copy.sequence) of key \(key.rawValue), which no segment it read holds in its index",
                                  path: paths.segments, context: ["key": "\(key.rawValue)"])
            }
            found.append(SupersededCopy(copy: copy, originalBlobs: original.blobs))
        }
        return found
    }

    /// Whether a record compaction met in segment `id` is its key's current version,
    /// judged against the index entry the reads use (nil: the index has no version of
    /// the key). The two must tell one story: compaction copies only what reads would
    /// answer, and never drops what they would (FORMAT.md §8). A record newer than its
    /// key's entry, a key the index lost, the current version's kind differing from its
    /// entry's, or an entry naming a place in this segment where no record of its key
    /// lies is damage — copying by either side alone would bring a deleted object back
    /// or drop an acknowledged one.
    func crossCheck(key: RecordKey, sequence: UInt64, isTombstone: Bool, location: RecordLocation, against entry: IndexEntry?, segment id: UInt32,
                    awaited: inout [RecordLocation: RecordKey], path: String) throws -> Bool {
        if !awaited.isEmpty { awaited[location] = nil }
        guard let entry else {
            throw StrataError(.corrupt, "the segment holds version \(sequence) of key \(key.rawValue), of which the index has no version: an index file is damaged",
                              path: path, offset: Int64(location.frameOffset), context: ["key": "\(key.rawValue)"])
        }
        if entry.sequence < sequence {
            throw StrataError(.corrupt, "the segment holds version \(sequence) of key \(key.rawValue), newer than the index's current \(entry.sequence): an index file is damaged",
                              path: path, offset: Int64(location.frameOffset), context: ["key": "\(key.rawValue)"])
        }
        if entry.sequence > sequence { return false }
        if entry.location == location {
            guard entry.isTombstone == isTombstone else {
                throw StrataError(.corrupt, "key \(key.rawValue)'s current version is \(isTombstone ? "a tombstone" : "a put") in the segment and \(entry.isTombstone ? "a tombstone" : "a put") in the index",
                                  path: path, offset: Int64(location.frameOffset), context: ["key": "\(key.rawValue)"])
            }
            return true
        }
        // Same version elsewhere: only a later record of the same transaction, in this
        // segment, can be it.
        guard entry.location.segment == id, entry.location.frameOffset >= location.frameOffset else {
            throw StrataError(.corrupt, "the index locates key \(key.rawValue)'s version \(sequence) in segment \(entry.location.segment) at frame \(entry.location.frameOffset), but this segment holds it at frame \(location.frameOffset)",
                              path: path, offset: Int64(location.frameOffset), context: ["key": "\(key.rawValue)"])
        }
        awaited[entry.location] = key
        return false
    }

    /// Deletes collected blob files once no current version references them — nor,
    /// with a retention, a superseded version kept for it: the compaction moved the
    /// blobs of those in the segments it rewrote (`rewritten`), and the segments
    /// written since by commits are read for any that still points into one (a commit
    /// may carry an unchanged reference over, and be superseded in turn).
    private func collectBlobFiles(_ collect: Set<UInt32>, retention: UInt64?, rewritten: Set<UInt32>, report: inout CompactionReport) throws {
        guard !collect.isEmpty else { return }
        // Commits wait for all of it: a pause.
        let held = try holdingWriter { w in
            compactionWillCollectBlobFiles.withLock { $0 }?()
            var referenced = try repairingIndex { try blobFilesReferenced(among: collect) }
            if retention != nil {
                let (others, files) = state.withLock { s in (s.manifest.segments.map(\.id).filter { !rewritten.contains($0) }, s.segmentFiles) }
                for id in others {
                    guard let file = files[id] else { continue }
                    _ = try SegmentScanner(file: file, segmentID: id, statistics: counters).scan(collect: false, provisional: true) { records in
                        for r in records { for blob in r.record.blobs where collect.contains(blob.file) { referenced.insert(blob.file) } }
                    }
                }
            }
            let (stillReferenced, sizes) = state.withLock { s -> (Set<UInt32>, [UInt32: Int64]) in
                for (file, count) in s.pendingBlobFiles where count > 0 { referenced.insert(file) }
                var sizes: [UInt32: Int64] = [:]
                for id in collect { sizes[id] = (try? s.blobFiles[id]?.size()) ?? 0 }
                return (referenced, sizes)
            }
            let removable = collect.subtracting(stillReferenced)
            guard !removable.isEmpty else { return }
            try upgradeIfNeeded()
            // The manifest keeps no counter of a removed file, and its counters are the
            // sealed segments': a record of the active segment that superseded a version
            // referencing a removed file (a compaction step dropped it) would, replayed
            // at open, take that version's bytes from a counter that is not there.
            // Sealed first, the active segment holds no such record.
            if w.segmentEnd > Int64(Format.segmentHeaderSize) { try roll(&w) }
            var manifest = state.withLock { $0.manifest }
            manifest.blobFiles.removeAll { removable.contains($0.id) }
            for id in removable { manifest.counters.liveBytesByBlobFile[id] = nil }
            manifest.retire(segments: [], blobFiles: removable.sorted(), isPresent: retiredFileIsPresent)
            // Superseded versions that referenced these blobs and were not kept are
            // gone: without a retention the store reads as of its last sequence only.
            let last = state.withLock { $0.lastSequence }
            manifest.raiseVersionFloor(to: retention ?? last, lastSequence: last)
            var retiring: [any StorageFile] = []
            try writeManifest(manifest) { s in
                retiring = removable.compactMap { s.blobFiles[$0] }
                for id in removable {
                    s.blobFiles[id] = nil
                    s.index.counters.liveBytesByBlobFile[id] = nil
                    s.keptBytesByBlobFile[id] = nil
                }
            }
            let handles = removeRetired(removable.map { paths.blob($0) })
            report.blobBytesReclaimed += removable.reduce(0) { $0 + (sizes[$1] ?? 0) }
            report.blobFilesCollected += removable.count
            syncAfterCleanup(paths.blobs)
            retire(retiring, handles: handles)
        }.held
        report.countPause(held)
    }

    /// Removes the names of files a swap retired. Each is opened for writing first,
    /// for the reclaimer to cut it through: the store holds a sealed file read-only,
    /// and once unlinked it cannot be opened again. Returns those handles of the names
    /// removed, by path.
    private func removeRetired(_ paths: [String]) -> [String: any StorageFile] {
        var handles: [String: any StorageFile] = [:]
        for path in paths {
            let handle = try? fileSystem.open(path, mode: .readWrite)
            guard (try? fileSystem.remove(path)) != nil else {
                try? handle?.close()
                continue
            }
            handles[path] = handle
        }
        return handles
    }

    /// Hands the files whose names were removed to the reclaimer, by way of whoever
    /// holds each last (this caller, when no reader or snapshot does).
    private func retire(_ files: [any StorageFile], handles: [String: any StorageFile]) {
        var handles = handles
        for case let file as ReclaimableFile in files {
            if let handle = handles.removeValue(forKey: file.path) { file.retire(to: reclaimer, cuttingThrough: handle) }
        }
        for handle in handles.values { try? handle.close() }
    }

    /// Whether a file of the retired list is still there, so that the list keeps
    /// only the ids whose deletion did not happen.
    /// A file removed without a durable directory fsync counts as present: after a
    /// power loss it is back (found by the object-layer fault sweep, ObjectFaultSweepTests).
    func retiredFileIsPresent(_ id: UInt32, isBlob: Bool) -> Bool {
        state.withLock { $0.removalsNotDurable } || fileSystem.exists(isBlob ? paths.blob(id) : paths.segment(id))
    }

    /// Sealed segments that hold a current version referencing a blob in `blobFiles`:
    /// each index file is streamed, and a candidate is checked against the current version.
    private func segmentsReferencing(_ blobFiles: Set<UInt32>) throws -> Set<UInt32> {
        let files = state.withLock { $0.index.files }
        var segments = Set<UInt32>()
        for file in files {
            try forEachWithCurrent(in: file, where: { $0.blobs.contains { blobFiles.contains($0.file) } }) { e, now in
                if now == e { segments.insert(e.location.segment) }
            }
        }
        return segments
    }

    /// Blob files of `candidates` that a current version still references (the overlay
    /// included: the active segment is never rewritten).
    private func blobFilesReferenced(among candidates: Set<UInt32>) throws -> Set<UInt32> {
        var referenced = Set<UInt32>()
        let (overlay, files) = state.withLock { ($0.index.overlay.allEntries.filter { !$0.blobs.isEmpty }, $0.index.files) }
        for e in overlay { for blob in e.blobs where candidates.contains(blob.file) { referenced.insert(blob.file) } }
        for file in files {
            try forEachWithCurrent(in: file, where: { $0.blobs.contains { candidates.contains($0.file) } }) { e, now in
                guard now == e else { return }
                for blob in e.blobs where candidates.contains(blob.file) { referenced.insert(blob.file) }
            }
        }
        return referenced
    }

    /// Calls `body` with each entry of `file` that `wanted` picks and its key's current
    /// version in the store (nil: none), looked up a batch at a time: a file of a
    /// million entries (a chunked import) is neither listed whole first nor looked up
    /// under one lock per entry.
    private func forEachWithCurrent(in file: IndexFile, where wanted: (IndexEntry) -> Bool = { _ in true },
                                    _ body: (IndexEntry, IndexEntry?) -> Void) throws {
        var batch: [IndexEntry] = []
        var lookups = Lookups()
        func settle() throws {
            var current: [IndexEntry?] = []
            try appendCurrentEntries(of: batch.map(\.key), to: &current, lookups: &lookups)
            for (entry, now) in zip(batch, current) { body(entry, now) }
            batch.removeAll(keepingCapacity: true)
        }
        try file.forEachEntry { entry in
            guard wanted(entry) else { return }
            batch.append(entry)
            if batch.count >= Self.currentCheckBatch { try settle() }
        }
        try settle()
    }

    /// What compaction's lookups keep of each index file between them (its fence, the
    /// block of the last key found), for as long as the store's files are these.
    struct Lookups {
        var files: [IndexFile] = []
        var memos: [IndexFile.LookupMemo] = []
    }

    /// Appends the current entries of `keys` (nil: the index has none) to `entries`,
    /// found as reads find them: the overlay under the state lock, then the index files
    /// it handed out, outside it, so that readers and commits do not wait for a step's
    /// lookups. The view is the store's at one instant after the step's `since`: a
    /// commit after it is one the swap settles.
    ///
    /// With `newerThan`, only versions past that sequence are asked for: the index
    /// files that hold none are not probed, and an entry found may be an older one.
    func appendCurrentEntries(of keys: [RecordKey], to entries: inout [IndexEntry?], lookups: inout Lookups, newerThan: UInt64? = nil) throws {
        let start = entries.count
        entries.reserveCapacity(start + keys.count)
        try repairingIndex {
            // repairingIndex runs this again after repairing an index file.
            entries.removeSubrange(start...)
            let (fromOverlay, files) = try state.withLock { s -> ([IndexEntry?], [IndexFile]) in
                if s.isClosed { throw StrataError(.closed, "the store is closed", path: path) }
                let files = newerThan.map { since in s.index.files.filter { $0.footer.maxSequence > since } } ?? s.index.files
                return (keys.map { s.index.overlay.entry($0) }, files)
            }
            if !files.elementsEqual(lookups.files, by: ===) { lookups = Lookups(files: files, memos: Array(repeating: .passing, count: files.count)) }
            // Filters are kept for one call, not taken from the cache per lookup.
            for i in lookups.memos.indices { lookups.memos[i].dropFilter() }
            for i in keys.indices {
                entries.append(try fromOverlay[i] ?? StoreIndex.sealedEntry(keys[i], in: files, memos: &lookups.memos))
            }
        }
    }

    /// Bytes of kept records past which compaction appends what it holds of a
    /// transaction as a piece: the records and the frames encoded from them are held
    /// until it is appended, and `overlayEntryLimit` records of some hundred bytes are
    /// many MiB of each.
    static let pieceBytes = 1 << 20

    /// Index entries looked up together when a walk asks which are current.
    static let currentCheckBatch = 4_096
    /// Keys whose overlay entries compaction asks for under one hold of the state lock.
    static let lookupsPerLock = 128

    /// The swap is already durable; if removing the old files does not become durable,
    /// they come back as leftovers that the next open removes. Not worth failing for.
    private func syncAfterCleanup(_ directory: String) {
        do {
            try fileSystem.syncDirectory(directory)
        } catch {
            state.withLock { $0.removalsNotDurable = true }
            logger.warning("could not fsync directory after removing compacted files; open will remove any that return", metadata: ["path": "\(directory)", "error": "\(error)"])
        }
    }
}

/// Bytes of superseded versions a compaction kept for a retention, in one file, and
/// the greatest sequence of the versions that superseded them.
struct KeptBytes: Sendable {
    var bytes: Int64 = 0
    var until: UInt64 = 0

    mutating func add(_ more: Int64, until sequence: UInt64) {
        bytes &+= more
        until = max(until, sequence)
    }

    /// What still counts as kept under `retention`: all of it while the retention is
    /// below `until` (some may still be needed), none once it is not (every one may
    /// be reclaimable) or without one.
    func bytes(below retention: UInt64?) -> Int64 {
        guard let retention, retention < until else { return 0 }
        return bytes
    }
}
