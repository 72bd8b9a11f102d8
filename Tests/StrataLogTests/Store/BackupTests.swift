import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog

/// `LogStore.backup(to:)`: a copy taken while other threads commit and compact opens,
/// verifies sound, and holds exactly the transactions up to the sequence it reports.
@Suite struct BackupTests {
    static var options: LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSizeLimit = 2 << 10
        options.blobFileSizeLimit = 16 << 10
        options.durability = .none
        return options
    }

    /// Transaction n (its sequence, with one committer) writes key n, and key 0 = n.
    static func commitNumbered(_ store: LogStore, _ n: UInt64) throws -> UInt64 {
        var batch = WriteBatch()
        let value = LogFixtures.value(n, size: 60)
        let blobs = n % 10 == 0 ? [try store.writeBlob(value + value)] : []
        batch.put(RecordKey(n), value: value, blobs: blobs)
        batch.put(RecordKey(0), value: Array("\(n)".utf8))
        return try store.commit(batch)
    }

    /// Checks a copy holds transactions 1…sequence of `commitNumbered` and no other.
    static func expectNumbered(_ copy: LogStore, through sequence: UInt64, probeBeyond: UInt64) throws {
        #expect(copy.lastSequence == sequence)
        #expect(try copy.get(RecordKey(0))?.value == Array("\(sequence)".utf8))
        for n in 1...sequence {
            let record = try copy.get(RecordKey(n))
            #expect(record?.value == LogFixtures.value(n, size: 60), "key \(n)")
            for blob in record?.blobs ?? [] { #expect(try copy.readBlob(blob) == record!.value + record!.value) }
        }
        if probeBeyond > sequence {
            for n in (sequence + 1)...probeBeyond { #expect(try copy.get(RecordKey(n)) == nil, "key \(n) is after the backup") }
        }
    }

    @Test func aBackupTakenWhileAnotherThreadCommitsHoldsExactlyItsTransactions() throws {
        let dir = try TemporaryDirectory("backup-commits")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.appending("source"), options: Self.options, logger: .quiet)
        defer { try? store.close() }
        for n in UInt64(1)...300 { #expect(try Self.commitNumbered(store, n) == n) }

        let stop = Locked(false)
        let committed = Locked<UInt64>(300)
        let writerFailure = Locked<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { done.signal() }
            var n = committed.withLock({ $0 })
            while !stop.withLock({ $0 }) {
                n += 1
                do {
                    let sequence = try Self.commitNumbered(store, n)
                    if sequence != n { writerFailure.withLock { $0 = "transaction \(n) got sequence \(sequence)" }; return }
                    committed.withLock { $0 = n }
                } catch {
                    writerFailure.withLock { $0 = "\(error)" }
                    return
                }
            }
        }
        // Wait for commits under way, then copy slowly so that they interleave.
        while committed.withLock({ $0 }) < 400 { usleep(1000) }
        var calls = 0
        let beforeBackup = committed.withLock({ $0 })
        let report = try store.backup(to: dir.appending("copy")) { _ in
            calls += 1
            usleep(2000)
        }
        let afterBackup = committed.withLock({ $0 })
        while committed.withLock({ $0 }) < afterBackup + 50 && writerFailure.withLock({ $0 }) == nil { usleep(1000) }
        stop.withLock { $0 = true }
        done.wait()
        #expect(writerFailure.withLock({ $0 }) == nil)
        #expect(calls > 0)
        #expect(report.sequence >= beforeBackup)
        #expect(afterBackup > beforeBackup, "commits went on while the backup ran")
        #expect(store.lastSequence > report.sequence, "commits went on during and after the backup")
        #expect(report.files > 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["copy", "source"])

        let copy = try LogStore.open(at: dir.appending("copy"), options: Self.options, logger: .quiet)
        defer { try? copy.close() }
        #expect(copy.storeID == store.storeID)
        #expect(try copy.verify().isSound)
        try Self.expectNumbered(copy, through: report.sequence, probeBeyond: store.lastSequence)
        // The copy is a store of its own: it takes commits, and the source is untouched.
        #expect(try Self.commitNumbered(copy, report.sequence + 1) == report.sequence + 1)
        #expect(try store.verify().isSound)
    }

    /// The state after transaction s of `writes`.
    static func model(after s: UInt64) -> [UInt64: [UInt8]] {
        var state: [UInt64: [UInt8]] = [:]
        for n in stride(from: UInt64(1), through: s, by: 1) { for (key, value) in writes(n) { state[key] = value } }
        return state
    }

    /// Overwrites of 40 keys: segments full of garbage for compaction.
    static func writes(_ n: UInt64) -> [(UInt64, [UInt8])] {
        (UInt64(0)..<5).map { i in let key = (n * 7 + i * 3) % 40; return (key, LogFixtures.value(key, version: Int(n), size: 80)) }
    }

    static func commitWrites(_ store: LogStore, _ n: UInt64) throws -> UInt64 {
        var batch = WriteBatch()
        for (key, value) in writes(n) {
            let blobs = (n + key) % 7 == 0 ? [try store.writeBlob(value)] : []
            batch.put(RecordKey(key), value: value, blobs: blobs)
        }
        return try store.commit(batch)
    }

    @Test(arguments: 0..<3)
    func aBackupTakenWhileCompactionRunsIsSound(round: Int) throws {
        let dir = try TemporaryDirectory("backup-compaction")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.appending("source"), options: Self.options, logger: .quiet)
        defer { try? store.close() }
        for n in UInt64(1)...400 { #expect(try Self.commitWrites(store, n) == n) }

        let stop = Locked(false)
        let failure = Locked<String?>(nil)
        let compactions = Locked(0)
        let group = DispatchGroup()
        // One thread compacts over and over, another commits overwrites meanwhile.
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            while !stop.withLock({ $0 }) {
                do { try store.compact(force: true) } catch { failure.withLock { $0 = "compact: \(error)" }; return }
                compactions.withLock { $0 += 1 }
            }
        }
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            var n = UInt64(400)
            while !stop.withLock({ $0 }) {
                n += 1
                do { _ = try Self.commitWrites(store, n) } catch { failure.withLock { $0 = "commit: \(error)" }; return }
            }
        }
        while compactions.withLock({ $0 }) < 1 + round { usleep(1000) }
        let report = try store.backup(to: dir.appending("copy")) { _ in usleep(500) }
        let compactionsDuringAndAfter = compactions.withLock({ $0 })
        while compactions.withLock({ $0 }) < compactionsDuringAndAfter + 1 && failure.withLock({ $0 }) == nil { usleep(1000) }
        stop.withLock { $0 = true }
        group.wait()
        #expect(failure.withLock({ $0 }) == nil)

        let copy = try LogStore.open(at: dir.appending("copy"), options: Self.options, logger: .quiet)
        defer { try? copy.close() }
        #expect(try copy.verify().isSound)
        #expect(copy.lastSequence == report.sequence)
        let expected = Self.model(after: report.sequence)
        #expect(copy.count == expected.count)
        for (key, value) in expected {
            let record = try copy.get(RecordKey(key))
            #expect(record?.value == value, "key \(key)")
            for blob in record?.blobs ?? [] { #expect(try copy.readBlob(blob) == value) }
        }
        // Compaction of the copy works too: its files are its own (linked ones included).
        try copy.compact(force: true)
        #expect(try copy.verify().isSound)
        #expect(try store.verify().isSound)
    }

    @Test func blobsAreCarriedAndImmutableFilesAreHardLinkedOnTheSameFileSystem() throws {
        let dir = try TemporaryDirectory("backup-blobs")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.appending("source"), options: Self.options, logger: .quiet)
        defer { try? store.close() }
        var refs: [UInt64: BlobRef] = [:]
        for key in UInt64(1)...40 {
            let ref = try store.writeBlob(LogFixtures.noise(3000, seed: key))
            refs[key] = ref
            var batch = WriteBatch()
            batch.put(RecordKey(key), value: LogFixtures.noise(500, seed: key + 1000), blobs: [ref])
            try store.commit(batch)
        }
        let manifest = store.state.withLock { $0.manifest }
        let sealedSegments = manifest.segments.filter { $0.state == .sealed }.count
        let sealedBlobs = manifest.blobFiles.filter { $0.state == .sealed }.count
        #expect(sealedSegments > 1 && sealedBlobs > 1)

        var last: BackupProgress?
        let report = try store.backup(to: dir.appending("copy")) { last = $0 }
        // Each sealed segment and its index file, each sealed blob file.
        #expect(report.linkedFiles == 2 * sealedSegments + sealedBlobs)
        // Those, the active segment and blob file, and the MANIFEST.
        #expect(report.files == report.linkedFiles + 3)
        #expect(last == BackupProgress(bytesCopied: report.bytes, bytesTotal: report.bytes, filesCopied: report.files, filesTotal: report.files))
        var info = stat()
        #expect(stat(dir.appending("copy/segments/000001.seg"), &info) == 0 && info.st_nlink == 2)
        #expect(stat(dir.appending("copy/MANIFEST"), &info) == 0 && info.st_nlink == 1)

        let copy = try LogStore.open(at: dir.appending("copy"), options: Self.options, logger: .quiet)
        defer { try? copy.close() }
        #expect(try copy.verify().isSound)
        for key in UInt64(1)...40 {
            let record = try #require(try copy.get(RecordKey(key)))
            #expect(record.blobs == [refs[key]!])
            #expect(try copy.readBlob(record.blobs[0]) == LogFixtures.noise(3000, seed: key))
        }
    }

    /// A file system that makes no links (another device, EXDEV) gets copies: the same
    /// store, with nothing linked; the in-memory file system links by sharing bytes.
    @Test(arguments: [false, true])
    func withoutHardLinksEveryFileIsCopied(linksRefused: Bool) throws {
        let memory = InMemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        if linksRefused { fs.inject(.fail(.link, errno: 18 /* EXDEV */)) }
        try fs.createDirectory("/backups")
        let store = try LogStore.open(at: "/store", options: Self.options, fileSystem: fs, logger: .quiet)
        defer { try? store.close() }
        for n in UInt64(1)...120 { _ = try Self.commitNumbered(store, n) }
        let report = try store.backup(to: "/backups/copy")
        #expect(report.sequence == 120)
        #expect(linksRefused ? report.linkedFiles == 0 : report.linkedFiles > 0)
        #expect(fs.count(of: .link) == (linksRefused ? 1 : report.linkedFiles), "after one refusal no link is tried again")
        let copy = try LogStore.open(at: "/backups/copy", options: Self.options, fileSystem: fs, logger: .quiet)
        defer { try? copy.close() }
        #expect(try copy.verify().isSound)
        try Self.expectNumbered(copy, through: 120, probeBeyond: 120)
        // The copy survives a power loss: every file and directory was fsynced.
        try copy.close()
        try store.close()
        memory.crash()
        let again = try LogStore.open(at: "/backups/copy", options: Self.options, fileSystem: memory, logger: .quiet)
        defer { try? again.close() }
        try Self.expectNumbered(again, through: 120, probeBeyond: 120)
    }

    /// A snapshot names no end of the store's active files: its backup is refused, not
    /// made with them empty.
    @Test func aSnapshotIsNotBackedUp() throws {
        let fs = InMemoryFileSystem()
        try fs.createDirectory("/backups")
        let store = try LogStore.open(at: "/store", options: Self.options, fileSystem: fs, logger: .quiet)
        defer { try? store.close() }
        for n in UInt64(1)...20 { _ = try Self.commitNumbered(store, n) }
        for snapshot in [try store.snapshot(), try store.snapshot(asOf: 10)] {
            let error = #expect(throws: StrataError.self) { try snapshot.backup(to: "/backups/copy") }
            #expect(error?.code == .invalidArgument)
            #expect(!fs.exists("/backups/copy"))
            try snapshot.close()
        }
    }

    /// A store opened read-only beside its writer backs up what it refreshed to, the
    /// blobs of the new commits included: the writer appends a blob before its commit.
    @Test func aReadOnlyStoreBacksUpTheBlobsOfTheCommitsItRefreshed() throws {
        let fs = InMemoryFileSystem()
        try fs.createDirectory("/backups")
        var options = Self.options
        // One segment and one blob file throughout: the refresh then reads the new
        // commits from the active segment, not a new manifest.
        options.segmentSizeLimit = 1 << 20
        options.blobFileSizeLimit = 1 << 20
        let writer = try LogStore.open(at: "/store", options: options, fileSystem: fs, logger: .quiet)
        defer { try? writer.close() }
        for n in UInt64(1)...10 { _ = try Self.commitNumbered(writer, n) }
        var readOnly = options
        readOnly.readOnly = true
        let reader = try LogStore.open(at: "/store", options: readOnly, fileSystem: fs, logger: .quiet)
        defer { try? reader.close() }
        // Transaction 20 carries a blob appended to the blob file past where the reader
        // opened it.
        for n in UInt64(11)...20 { _ = try Self.commitNumbered(writer, n) }
        let generation = reader.state.withLock { $0.manifest.generation }
        #expect(try reader.refresh())
        #expect(reader.lastSequence == 20)
        #expect(reader.state.withLock { $0.manifest.generation } == generation, "read from the active segment")
        let report = try reader.backup(to: "/backups/copy")
        #expect(report.sequence == 20)
        let copy = try LogStore.open(at: "/backups/copy", options: options, fileSystem: fs, logger: .quiet)
        defer { try? copy.close() }
        #expect(try copy.verify().isSound)
        try Self.expectNumbered(copy, through: 20, probeBeyond: 20)
    }

    /// A transaction appended but not yet durable is not acknowledged: a backup that
    /// would hold it finishes only once it is, and fails, leaving nothing, when its
    /// fsync fails.
    @Test func aBackupWaitsForItsLastTransactionToBeDurable() throws {
        let faults = FaultInjectingFileSystem(wrapping: InMemoryFileSystem())
        try faults.createDirectory("/backups")
        var options = Self.options
        options.durability = .everyCommit
        let store = try LogStore.open(at: "/store", options: options, fileSystem: faults, logger: .quiet)
        defer { try? store.close() }
        for n in UInt64(1)...5 { _ = try Self.commitNumbered(store, n) }
        var batch = WriteBatch()
        batch.put(RecordKey(6), value: [6])
        let pending = try store.commitPending(batch)
        faults.inject(.fail(.sync, errno: EIO, matching: "/store/segments/", on: .once))
        let error = #expect(throws: StrataError.self) { try store.backup(to: "/backups/copy") }
        #expect(error?.code == .io)
        #expect(!faults.exists("/backups/copy"))
        #expect(throws: StrataError.self) { try store.waitUntilDurable(pending) }
    }

    @Test func anExistingDestinationIsRefused() throws {
        let dir = try TemporaryDirectory("backup-exists")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.appending("source"), options: Self.options, logger: .quiet)
        defer { try? store.close() }
        _ = try Self.commitNumbered(store, 1)
        try FileManager.default.createDirectory(atPath: dir.appending("empty"), withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: dir.appending("file"), contents: Data([1]))
        for existing in ["empty", "file", "source"] {
            let error = #expect(throws: StrataError.self) { try store.backup(to: dir.appending(existing)) }
            #expect(error?.code == .invalidArgument, "\(existing)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appending("empty")).isEmpty)
        let inside = #expect(throws: StrataError.self) { try store.backup(to: dir.appending("source/backup")) }
        #expect(inside?.code == .invalidArgument)
        let noParent = #expect(throws: StrataError.self) { try store.backup(to: dir.appending("missing/copy")) }
        #expect(noParent?.code == .notFound)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["empty", "file", "source"])
        try store.close()
        let closed = #expect(throws: StrataError.self) { try store.backup(to: dir.appending("copy")) }
        #expect(closed?.code == .closed)
    }

    /// A backup killed part-way leaves its scratch directory (`DEST.partial-…`); the
    /// next backup to the same destination removes it, and leaves alone one whose
    /// backup still holds its lock.
    @Test func theScratchDirectoryOfAKilledBackupIsRemovedByTheNext() throws {
        let dir = try TemporaryDirectory("backup-partial")
        defer { dir.remove() }
        let store = try LogStore.open(at: dir.appending("source"), options: Self.options, logger: .quiet)
        defer { try? store.close() }
        _ = try Self.commitNumbered(store, 3)
        let killed = dir.appending("copy.partial-dead")
        try FileManager.default.createDirectory(atPath: killed + "/segments", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: killed + "/segments/000001.seg", contents: Data([1, 2, 3]))
        _ = FileManager.default.createFile(atPath: killed + "/LOCK", contents: nil)
        // Named like one, but not a backup's: another file in it, or no lock yet.
        let foreign = dir.appending("copy.partial-notes")
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: foreign + "/LOCK", contents: nil)
        _ = FileManager.default.createFile(atPath: foreign + "/notes.txt", contents: Data([1]))
        let starting = dir.appending("copy.partial-starting")
        try FileManager.default.createDirectory(atPath: starting, withIntermediateDirectories: false)
        let running = dir.appending("copy.partial-running")
        try FileManager.default.createDirectory(atPath: running, withIntermediateDirectories: false)
        let held = try POSIXFileSystem().lock(running + "/LOCK")
        defer { held.unlock() }
        let other = dir.appending("other.partial-dead")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: false)

        try store.backup(to: dir.appending("copy"))
        #expect(!FileManager.default.fileExists(atPath: killed))
        #expect(FileManager.default.fileExists(atPath: running))
        #expect(FileManager.default.fileExists(atPath: other), "another destination's")
        #expect(FileManager.default.fileExists(atPath: foreign + "/notes.txt"))
        #expect(FileManager.default.fileExists(atPath: starting))
        let copy = try LogStore.open(at: dir.appending("copy"), options: Self.options, logger: .quiet)
        defer { try? copy.close() }
        #expect(try copy.verify().isSound)
    }

    /// A format-1 store (hint files, index files in memory) is copied as it is: the copy
    /// opens as format 1 with the same records.
    @Test func aFormatOneStoreIsCopiedAsItIs() throws {
        let dir = try TemporaryDirectory("backup-format1")
        defer { dir.remove() }
        let source = dir.appending("source.strata")
        try FileManager.default.copyItem(atPath: FixturePaths.store("format-1/employees-v1.strata"), toPath: source)
        var options = LogStoreOptions()
        options.createIfMissing = false
        let store = try LogStore.open(at: source, options: options, logger: .quiet)
        defer { try? store.close() }
        #expect(store.formatVersion == 1)
        let report = try store.backup(to: dir.appending("copy"))
        let copy = try LogStore.open(at: dir.appending("copy"), options: options, logger: .quiet)
        defer { try? copy.close() }
        #expect(copy.formatVersion == 1)
        #expect(copy.lastSequence == report.sequence)
        #expect(try copy.verify().isSound)
        #expect(try copy.keys() == store.keys())
        for key in try store.keys() { #expect(try copy.get(key) == store.get(key)) }
    }
}
