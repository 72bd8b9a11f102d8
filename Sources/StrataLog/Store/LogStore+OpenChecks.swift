import Logging

/// The cross-checks open makes between its sources of truth (FORMAT.md §4.4, §4.6):
/// the manifest against the files present, the segments it scans against the
/// manifest's entry and their seal, hint and index files against their segment. Each refuses
/// with `.corrupt` naming the file, or repairs with a warning when nothing is lost.
extension LogStore {
    /// Next ids must lie above every id the manifest lists and every file present,
    /// or a roll or compaction would create a file over one that holds data. A lower
    /// counter is raised (nothing is lost; the next manifest written keeps it) with a
    /// warning naming MANIFEST and the field.
    static func repairCounters(_ manifest: inout Manifest, paths: StorePaths, fileSystem: any FileSystem, logger: Logger) {
        func present(_ directory: String, _ suffix: String) -> [UInt32] {
            ((try? fileSystem.contentsOfDirectory(directory)) ?? []).compactMap { StorePaths.parseNumber($0, suffix: suffix) }
        }
        let segmentIDs = manifest.segments.map(\.id) + present(paths.segments, ".seg") + present(paths.index, ".hint")
        let blobIDs = manifest.blobFiles.map(\.id) + present(paths.blobs, ".blob")
        func raise(_ counter: inout UInt32, above ids: [UInt32], field: String) {
            guard let highest = ids.max(), counter <= highest else { return }
            // At the top of the range the counter stays there: the next allocation
            // then fails with `.limitExceeded` instead of reusing an id.
            let repaired = highest == .max ? UInt32.max : highest + 1
            logger.warning("MANIFEST: \(field) is not above the ids in use; raising it", metadata: [
                "path": "\(paths.manifest)", "field": "\(field)", "was": "\(counter)", "now": "\(repaired)",
            ])
            counter = repaired
        }
        raise(&manifest.nextSegmentID, above: segmentIDs, field: "nextSegmentID")
        raise(&manifest.nextBlobID, above: blobIDs, field: "nextBlobID")
    }

    /// A sealed segment that was scanned must hold what its seal frame and its
    /// manifest entry say: the seal's min and max are exactly the committed sequences
    /// (every writer writes them so), the entry's min is the same and its max is not
    /// below (compaction may raise it, §8). A segment cut short and sealed again, or
    /// transactions given other sequences, fail here instead of losing data silently.
    static func checkSealedScan(_ scan: SegmentScanner.Result, info: Manifest.SegmentInfo, path: String) throws {
        let scannedMin = scan.minSequence == .max ? 0 : scan.minSequence
        if let seal = scan.sealRange, seal.min != scannedMin || seal.max != scan.maxSequence {
            throw StrataError(.corrupt, "the seal frame records sequences \(seal.min)…\(seal.max) but the segment's transactions hold \(scannedMin)…\(scan.maxSequence): it was cut or rewritten",
                              path: path, offset: scan.validEnd)
        }
        guard scannedMin == info.minSequence, scan.maxSequence <= info.maxSequence else {
            throw StrataError(.corrupt, "the manifest lists this segment with sequences \(info.minSequence)…\(info.maxSequence) but its transactions hold \(scannedMin)…\(scan.maxSequence): it was cut, rewritten or re-sequenced",
                              path: path, offset: Int64(Format.segmentHeaderSize), context: ["manifestMin": "\(info.minSequence)", "manifestMax": "\(info.maxSequence)"])
        }
    }

    /// A sealed segment whose index file was rebuilt by a scan must still hold the
    /// live record bytes the manifest counts for it (FORMAT.md §6.1): the counters were
    /// exact when the manifest was written, and before the active segment is replayed
    /// the sealed files are what they were then. Fewer live bytes mean versions the
    /// store acknowledged are gone — a segment cut and given a seal that agrees with
    /// what is left, which the sequence checks cannot tell from a compaction output
    /// (§4.2). More is not a loss, only a sign the counters were off: a warning.
    static func checkRebuiltLiveBytes(segment id: UInt32, index: StoreIndex, counters: IndexCounters, path: String, logger: Logger) throws {
        guard let file = index.file(for: id) else { return }
        var live: Int64 = 0
        // A memo per file: each file's fence is read once for the walk, not per entry.
        var memos = IndexFile.LookupMemo.perFile(index.files.count)
        do {
            try file.forEachEntry { entry in
                guard let newest = try StoreIndex.sealedEntry(entry.key, in: index.files, memos: &memos),
                      newest.location.segment == id, newest.sequence == entry.sequence else { return }
                live &+= entry.recordBytes
            }
        } catch is IndexFile.Damage {
            // Another index file is damaged: replaying the active segment finds and
            // rebuilds it; this check is then left out rather than guessed.
            logger.warning("could not check a rebuilt segment's live bytes: another index file is damaged", metadata: ["path": "\(path)"])
            return
        }
        let expected = counters.liveBytesBySegment[id] ?? 0
        if live < expected {
            throw StrataError(.corrupt, "the manifest counts \(expected) live record bytes in this segment but it holds \(live): versions the store acknowledged are missing (the segment was cut or rewritten)",
                              path: path, context: ["segment": "\(id)", "manifestLiveBytes": "\(expected)", "liveBytes": "\(live)"])
        }
        if live > expected {
            logger.warning("a rebuilt segment holds more live record bytes than the manifest counts", metadata: [
                "path": "\(path)", "manifestLiveBytes": "\(expected)", "liveBytes": "\(live)",
            ])
        }
    }

    /// After a rebuild, the live keys per key prefix the manifest counts must be what
    /// the sealed index files now hold (FORMAT.md §6.1). A record whose kind or key was
    /// edited inside a sealed segment, its checksum recomputed, keeps the segment's
    /// live bytes but turns a put into a tombstone (an object vanishes), a tombstone
    /// into a put (a deleted one returns) or one key into another: the index file
    /// written at the roll would have disagreed with the record on every read, the
    /// rebuilt one agrees with it. One merge of the index files, only when one was
    /// rebuilt.
    static func checkRebuiltLiveKeys(index: StoreIndex, counters: IndexCounters, path: String, logger: Logger) throws {
        let counted: IndexCounters
        do {
            counted = try IndexCounters(counting: index)
        } catch is IndexFile.Damage {
            logger.warning("could not recount live keys after a rebuild: another index file is damaged", metadata: ["path": "\(path)"])
            return
        }
        let prefixes = Set(counted.liveCountByPrefix.keys).union(counters.liveCountByPrefix.keys).sorted()
        for prefix in prefixes where (counted.liveCountByPrefix[prefix] ?? 0) != (counters.liveCountByPrefix[prefix] ?? 0) {
            let expected = counters.liveCountByPrefix[prefix] ?? 0, found = counted.liveCountByPrefix[prefix] ?? 0
            throw StrataError(.corrupt, "the manifest counts \(expected) live keys under prefix \(prefix) but the sealed segments hold \(found) once an index file was rebuilt from its segment: a record's key or kind was changed",
                              path: path, context: ["prefix": "\(prefix)", "manifestLiveKeys": "\(expected)", "liveKeys": "\(found)"])
        }
    }

    /// The most record bytes a segment of `size` bytes can hold: records are counted
    /// decompressed, and an LZ4 block expands at most 255 times (a bound on the stored
    /// size alone wrongly refused every hint and index file of a compressed segment).
    static func maxRecordBytes(inSegmentOf size: Int64) -> UInt64 {
        UInt64(clamping: size).multipliedReportingOverflow(by: 255).overflow ? .max : UInt64(clamping: size) * 255
    }

    /// Why a hint file cannot stand for its segment, or nil when it can: checked
    /// against the manifest's entry and the segment's size (cheap: no segment byte is
    /// read). A hint that fails is not used; the segment is scanned instead.
    static func hintProblem(_ hint: HintFile, info: Manifest.SegmentInfo, segmentSize: Int64) -> String? {
        guard hint.minSequence == info.minSequence, hint.maxSequence <= info.maxSequence, hint.minSequence <= hint.maxSequence else {
            return "its sequences \(hint.minSequence)…\(hint.maxSequence) do not match the manifest's \(info.minSequence)…\(info.maxSequence)"
        }
        guard hint.recordBytes <= maxRecordBytes(inSegmentOf: segmentSize) else {
            return "it counts \(hint.recordBytes) record bytes in a segment of \(segmentSize)"
        }
        for entry in hint.entries {
            let location = entry.location
            guard (hint.minSequence...hint.maxSequence).contains(entry.sequence),
                  location.frameOffset >= Format.segmentHeaderSize,
                  Int(location.frameLength) <= Format.frameHeaderSize + Format.maxFramePayload,
                  Int64(location.frameOffset) + Int64(location.frameLength) <= segmentSize,
                  UInt64(location.recordOffset) + UInt64(location.recordLength) <= UInt64(Format.maxFramePayload) * 8
            else {
                return "its entry for key \(entry.key) (sequence \(entry.sequence), frame at \(location.frameOffset)) lies outside the segment or its sequences"
            }
        }
        return nil
    }

    /// Segment and blob files in the store's folders that the manifest does not list.
    /// Leftovers of work no manifest named yet (ids at or above the manifest's next
    /// ids), files a swap retired, and empty files are removed. Any other may hold
    /// acknowledged data the manifest lost: a segment is kept, and open refuses unless
    /// every version it holds is one the store has or superseded (then it is garbage
    /// of a compaction by an older release); a blob file is kept and open refuses if a
    /// current version references it. Never deletes a file that may hold data.
    static func settleUnlistedFiles(paths: StorePaths, manifest: Manifest, index: StoreIndex, fileSystem: any FileSystem, logger: Logger, readOnly: Bool) throws {
        do {
            try settleUnlistedFilesChecked(paths: paths, manifest: manifest, index: index, fileSystem: fileSystem, logger: logger, readOnly: readOnly)
        } catch let damage as IndexFile.Damage {
            throw damage.error
        }
    }

    /// Whether `path` is a directory, said in a warning: only files are the store's to
    /// judge and remove, and a directory named like one (a backup put there by mistake,
    /// say) is someone else's, and stays.
    static func isForeignDirectory(_ path: String, fileSystem: any FileSystem, logger: Logger) -> Bool {
        guard fileSystem.isDirectory(path) else { return false }
        logger.warning("a directory is named like a store file; left alone", metadata: ["path": "\(path)"])
        return true
    }

    private static func settleUnlistedFilesChecked(paths: StorePaths, manifest: Manifest, index: StoreIndex, fileSystem: any FileSystem, logger: Logger, readOnly: Bool) throws {
        let listedSegments = Set(manifest.segments.map(\.id)), listedBlobs = Set(manifest.blobFiles.map(\.id))
        let retiredSegments = manifest.retiredSegments, retiredBlobs = manifest.retiredBlobFiles
        // An id at or above the next one was allocated after this manifest was
        // written — unless the counter itself is damaged (not above the ids listed):
        // then it marks nothing as a leftover.
        let segmentsAfter = manifest.nextSegmentID > (listedSegments.max() ?? 0) ? manifest.nextSegmentID : UInt32.max
        let blobsAfter = manifest.nextBlobID > (listedBlobs.max() ?? 0) ? manifest.nextBlobID : UInt32.max
        func remove(_ path: String, _ why: String) throws {
            guard !readOnly else { return }
            logger.warning("removing leftover file", metadata: ["path": "\(path)", "reason": "\(why)"])
            try fileSystem.remove(path)
        }
        func isDirectory(_ path: String) -> Bool { isForeignDirectory(path, fileSystem: fileSystem, logger: logger) }
        for name in try fileSystem.contentsOfDirectory(paths.segments) {
            guard let id = StorePaths.parseNumber(name, suffix: ".seg"), !listedSegments.contains(id) else { continue }
            let path = paths.segment(id)
            if isDirectory(path) { continue }
            if id >= segmentsAfter && segmentsAfter < .max { try remove(path, "written after the manifest (unfinished roll or compaction)"); continue }
            if retiredSegments.contains(id) { try remove(path, "retired by a compaction or migration"); continue }
            let file = try fileSystem.open(path, mode: .readOnly)
            defer { try? file.close() }
            if try file.size() <= Int64(Format.segmentHeaderSize) { try remove(path, "holds no frames"); continue }
            if let newer = try versionNotInIndex(file, id: id, manifest: manifest, index: index) {
                throw StrataError(.corrupt, "the manifest does not list this segment, which holds \(newer) that the store does not have: it was not left by a crash. Nothing was removed. Restore the manifest, or move the file out of segments/ to open the store without it",
                                  path: path, context: ["segment": "\(id)"])
            }
            try remove(path, "unlisted, and every version it holds is in the store or superseded")
        }
        // Which blob files current versions reference: a walk of the index, made only
        // when there is an unlisted blob file to judge.
        var referencedCache: Set<UInt32>?
        func referenced() throws -> Set<UInt32> {
            if let referencedCache { return referencedCache }
            let found = try index.blobFilesReferenced()
            referencedCache = found
            return found
        }
        for name in try fileSystem.contentsOfDirectory(paths.blobs) {
            guard let id = StorePaths.parseNumber(name, suffix: ".blob"), !listedBlobs.contains(id) else { continue }
            let path = paths.blob(id)
            if isDirectory(path) { continue }
            if id >= blobsAfter && blobsAfter < .max { try remove(path, "written after the manifest (unfinished blob roll or compaction)"); continue }
            if retiredBlobs.contains(id) { try remove(path, "retired by a compaction"); continue }
            if try referenced().contains(id) {
                throw StrataError(.corrupt, "the manifest does not list this blob file, which current versions reference: it was not left by a crash. Nothing was removed. Restore the manifest",
                                  path: path, context: ["blobFile": "\(id)"])
            }
            try remove(path, "unlisted and referenced by no current version")
        }
    }

    /// A description of the first version in an unlisted segment that the index
    /// neither holds nor has superseded, or nil when there is none. A segment whose
    /// header is not this store's, or whose frames are damaged beyond a torn tail,
    /// counts as holding data.
    private static func versionNotInIndex(_ file: any StorageFile, id: UInt32, manifest: Manifest, index: StoreIndex) throws -> String? {
        guard let header = try? FileHeader.decode(try file.readExactly(FileHeader.size, at: 0), expectedMagic: Format.segmentMagic, path: file.path),
              header.storeID == manifest.storeID, header.fileID == id else {
            return "a header that is not this store's"
        }
        var missing: String?
        let scan = try SegmentScanner(file: file, segmentID: id, statistics: nil).scan(collect: false) { transaction in
            guard missing == nil else { return }
            for scanned in transaction {
                let r = scanned.record
                if let entry = try index.entry(r.key) {
                    if entry.sequence >= r.sequence { continue }
                } else if r.isTombstone {
                    continue
                }
                missing = "\(r.isTombstone ? "a delete" : "a version") of key \(r.key.rawValue) at sequence \(r.sequence)"
                return
            }
        }
        if missing == nil && scan.damageIsDefinite { return "damaged frames" }
        return missing
    }
}
