extension LogStore {
    /// Reads every frame of every segment, every index file, and every blob that a
    /// live record references, checking each checksum and that the index agrees with
    /// the files. It reports rather than throws, so one damaged frame does not hide
    /// the next.
    ///
    /// ```swift
    /// let report = try store.verify()
    /// if !report.isSound { print(report) }
    /// ```
    public func verify() throws -> VerifyReport {
        var report = VerifyReport()
        let (manifest, segmentFiles, blobFiles) = state.withLock { ($0.manifest, $0.segmentFiles, $0.blobFiles) }
        let activeEnd = writer.withLock { $0.segmentEnd }
        for info in manifest.segments {
            guard let file = segmentFiles[info.id] else {
                report.problems.append(StrataError(.corrupt, "segment listed in the manifest is not open", path: paths.segment(info.id)))
                continue
            }
            report.segmentsChecked += 1
            // A sound sealed segment is rebuilt into a scratch file through bounded
            // sorters (a segment sealed around one chunked commit would otherwise be held
            // whole) and compared with its index file a chunk at a time — in `index/`
            // for a store that may write, in `scratchDirectory` for a read-only one that
            // names one; anything else is scanned and rebuilt in memory.
            // Named apart per call (and per store, in a shared directory): two
            // verifications may run at once.
            let scratchDirectory = options.readOnly ? options.scratchDirectory : paths.index
            let storeTag = manifest.storeID.prefix(8).map { String($0, radix: 16) }.joined()
            let scratchBase = (scratchDirectory ?? paths.index) + "/" + (options.readOnly ? "strata-\(storeTag)-" : "") + StorePaths.number(info.id)
                + ".verify-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let scratch = scratchBase + ".tmp"
            if info.state == .sealed && scratchDirectory != nil && state.withLock({ $0.failure == nil }) {
                let rebuild = IndexFileRebuild(fileSystem: fileSystem, scratchBase: scratchBase, sortBatch: options.bulkSortBatch)
                if let scan = try? rebuild.rebuild(file, segmentID: info.id, storeID: manifest.storeID, to: scratch),
                   scan.damage == nil, scan.sealed, (try? Self.checkSealedScan(scan, info: info, path: file.path)) != nil {
                    report.bytesChecked += scan.validEnd
                    verifyIndexFile(info.id, expectedAt: scratch, report: &report)
                    try? fileSystem.remove(scratch)
                    continue
                }
                try? fileSystem.remove(scratch)
            }
            let scan: SegmentScanner.Result
            var builder = IndexFileBuilder()
            do {
                // A frame at a time, so that no transaction is held whole (a chunked
                // commit's, one being written now, or one a kill cut short in a read-only
                // store): damage is reported whatever the index built from them says, and
                // the active segment's records are needed by nothing here.
                scan = try SegmentScanner(file: file, segmentID: info.id, statistics: nil).scan(collect: false, provisional: true) { records in
                    if info.state == .sealed { builder.add(records) }
                }
            } catch {
                report.problems.append((error as? StrataError) ?? StrataError(.io, "\(error)", path: file.path))
                continue
            }
            report.bytesChecked += scan.validEnd
            if let damage = scan.damage {
                let isTornActiveTail = info.state == .active && damage.offset >= activeEnd
                if !isTornActiveTail {
                    report.problems.append(StrataError(.corrupt, "damaged frame: \(damage.reason)", path: file.path, offset: damage.offset))
                }
            }
            if info.state == .sealed && scan.damage == nil && !scan.sealed {
                report.problems.append(StrataError(.corrupt, "sealed segment does not end with a seal frame: it lost its tail", path: file.path, offset: scan.validEnd))
            }
            if info.state == .sealed && scan.damage == nil {
                // The checks open makes when it scans: seal and manifest entry agree
                // with the transactions the segment holds.
                do {
                    try Self.checkSealedScan(scan, info: info, path: file.path)
                } catch {
                    report.problems.append((error as? StrataError) ?? StrataError(.corrupt, "\(error)", path: file.path))
                }
            }
            if info.state == .sealed {
                let expected = try builder.encoded(segmentID: info.id, storeID: manifest.storeID, minSequence: scan.minSequence == .max ? 0 : scan.minSequence,
                                               maxSequence: scan.maxSequence, recordBytes: scan.recordBytes, segmentLength: scan.validEnd)
                verifyIndexFile(info.id, expected: expected, report: &report)
            }
        }
        // An index that cannot list the keys is a problem to report, not a reason to
        // stop. Keys are listed a page at a time, not all at once.
        var after: RecordKey?
        while true {
            let liveKeys: [RecordKey]
            do {
                liveKeys = try keys(in: nil, after: after, limit: 4_096)
            } catch {
                report.problems.append((error as? StrataError) ?? StrataError(.corrupt, "\(error)", path: path))
                liveKeys = []
            }
            guard let last = liveKeys.last else { break }
            after = last
            for key in liveKeys {
                do {
                    guard let record = try get(key) else { continue }
                    report.recordsChecked += 1
                    for ref in record.blobs {
                        guard let file = blobFiles[ref.file] else {
                            report.problems.append(StrataError(.corrupt, "record \(key) references blob file \(ref.file), which the store does not have", path: paths.blob(ref.file)))
                            continue
                        }
                        _ = try BlobReader.read(ref, from: file)
                        report.blobsChecked += 1
                        report.bytesChecked += Int64(ref.length)
                    }
                } catch {
                    report.problems.append((error as? StrataError) ?? StrataError(.io, "\(error)", path: path))
                }
            }
        }
        verifyCounters(&report)
        // One damaged frame is met once per record read from it: told once.
        var told = Set<String>()
        report.problems = report.problems.filter { told.insert($0.description).inserted }
        return report
    }

    /// Closes the store and throws `.corrupt` naming the first problem of `report`,
    /// unless it is sound: open's paranoid checks.
    package func refuseUnlessSound(_ report: VerifyReport) throws {
        guard let refusal = report.paranoidRefusal else { return }
        try? close()
        throw refusal
    }

    /// Recounts what the manifest's counters keep (FORMAT.md §6.1) — live bytes per
    /// segment and blob file, live keys per key prefix — from one merge of the index,
    /// and reports each figure that differs from the store's: `count` and compaction's
    /// choices answer from those figures without reading a key.
    private func verifyCounters(_ report: inout VerifyReport) {
        let (snapshot, kept) = state.withLock { ($0.index, $0.index.counters) }
        let counted: IndexCounters
        do {
            counted = try IndexCounters(counting: snapshot)
        } catch {
            report.problems.append((error as? IndexFile.Damage)?.error ?? (error as? StrataError) ?? StrataError(.corrupt, "\(error)", path: paths.index))
            return
        }
        func compare<K: Comparable & Hashable>(_ what: String, _ keptFigures: [K: Int64], _ countedFigures: [K: Int64], _ name: (K) -> String) {
            for key in Set(keptFigures.keys).union(countedFigures.keys).sorted() {
                let stored = keptFigures[key] ?? 0, actual = countedFigures[key] ?? 0
                guard stored != actual else { continue }
                report.problems.append(StrataError(.corrupt, "the manifest's counters hold \(stored) \(what) for \(name(key)); the index holds \(actual)",
                                                   path: paths.manifest, context: ["counter": what, "key": name(key), "stored": "\(stored)", "counted": "\(actual)"]))
            }
        }
        compare("live record bytes", kept.liveBytesBySegment, counted.liveBytesBySegment) { "segment \($0)" }
        compare("live blob bytes", kept.liveBytesByBlobFile, counted.liveBytesByBlobFile) { "blob file \($0)" }
        compare("live keys", kept.liveCountByPrefix, counted.liveCountByPrefix) { "key prefix \($0)" }
    }

    /// A segment whose index file this process rebuilt in memory only: the one it reads
    /// is sound by construction, the one on disk is not (what open or a read found).
    private func reportRebuiltInMemory(_ id: UInt32, report: inout VerifyReport) -> Bool {
        guard state.withLock({ $0.indexFilesRebuiltInMemory.contains(id) }) else { return false }
        report.indexFilesChecked += 1
        report.problems.append(StrataError(.corrupt, "the index file on disk is damaged or missing: reads here use one rebuilt from its segment (delete the file to have the next open for writing rebuild it)",
                                           path: paths.indexFile(id)))
        return true
    }

    /// ``verifyIndexFile(_:expected:report:)`` against a rebuilt file on disk, read a
    /// chunk at a time: every byte before the footer equal, and the footer equal once
    /// the rebuilt one carries the file's version.
    private func verifyIndexFile(_ id: UInt32, expectedAt path: String, report: inout VerifyReport) {
        guard let index = state.withLock({ $0.index.file(for: id) }) else {
            report.problems.append(StrataError(.corrupt, "sealed segment \(id) has no index file open", path: paths.indexFile(id)))
            return
        }
        if reportRebuiltInMemory(id, report: &report) { return }
        do {
            let expected = try fileSystem.open(path, mode: .readOnly)
            defer { try? expected.close() }
            let size = try index.file.size(), expectedSize = try expected.size()
            report.indexFilesChecked += 1
            var same = size == expectedSize && size >= Int64(IndexFooter.size)
            let body = size - Int64(IndexFooter.size)
            var offset: Int64 = 0
            while same && offset < body {
                let count = Int(min(1 << 20, body - offset))
                same = try index.file.readExactly(count, at: offset) == expected.readExactly(count, at: offset)
                offset += Int64(count)
            }
            if same {
                var footer = try IndexFooter.decode(try expected.readExactly(IndexFooter.size, at: body), fileSize: expectedSize, path: path)
                footer.version = index.footer.version
                same = try index.file.readExactly(IndexFooter.size, at: body) == footer.encoded()
            }
            if !same {
                report.problems.append(StrataError(.corrupt, "index file disagrees with its segment (delete it to have open rebuild it)", path: index.path))
            }
        } catch {
            report.problems.append((error as? StrataError) ?? StrataError(.io, "\(error)", path: index.path))
        }
    }

    /// Compares a sealed segment's index file with one rebuilt from the segment: the
    /// bytes must be equal (the encoding is deterministic).
    private func verifyIndexFile(_ id: UInt32, expected: [UInt8], report: inout VerifyReport) {
        guard let index = state.withLock({ $0.index.file(for: id) }) else {
            report.problems.append(StrataError(.corrupt, "sealed segment \(id) has no index file open", path: paths.indexFile(id)))
            return
        }
        if reportRebuiltInMemory(id, report: &report) { return }
        do {
            let size = Int(try index.file.size())
            let bytes = try index.file.readExactly(size, at: 0)
            report.indexFilesChecked += 1
            var expected = expected
            // A format-2 file is the same bytes but for the version in its footer (and
            // the footer's checksum): compare with the rebuilt file written as version 2.
            if index.footer.version != Format.version, expected.count >= IndexFooter.size {
                var footer = try IndexFooter.decode(Array(expected.suffix(IndexFooter.size)), fileSize: Int64(expected.count), path: index.path)
                footer.version = index.footer.version
                expected.replaceSubrange((expected.count - IndexFooter.size)..., with: footer.encoded())
            }
            if bytes != expected {
                report.problems.append(StrataError(.corrupt, "index file disagrees with its segment (delete it to have open rebuild it)", path: index.path))
            }
        } catch {
            report.problems.append((error as? StrataError) ?? StrataError(.io, "\(error)", path: index.path))
        }
    }
}
