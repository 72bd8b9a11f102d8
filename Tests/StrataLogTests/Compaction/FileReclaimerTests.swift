import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog

/// Files a compaction retires are unlinked at once and freed in pieces by the store's
/// reclaimer, but only after the last holder lets go: a snapshot taken before the
/// compaction reads them whole until it is released.
@Suite struct FileReclaimerTests {
    /// Small overlays, so that a few commits seal several segments; any garbage compacts.
    static func options() -> LogStoreOptions { SnapshotAndRefreshTests.options() }

    /// A store whose sealed segments are mostly garbage: `rounds` overwrites of 200 keys
    /// (into `existing`, when given, else the store at `path`).
    @discardableResult
    static func garbageStore(at path: String = "/s", _ fileSystem: any FileSystem, existing: LogStore? = nil, rounds: Int = 6) throws -> LogStore {
        let store = try existing ?? LogStore.open(at: path, options: options(), fileSystem: fileSystem, logger: .quiet)
        for round in 0..<rounds {
            var batch = WriteBatch()
            for k in UInt64(0)..<200 {
                batch.put(RecordKey(k), value: LogFixtures.value(k, version: round, size: 120),
                          blobs: k % 7 == 0 ? [try store.writeBlob(LogFixtures.noise(900, seed: k &+ UInt64(round)))] : [])
            }
            try store.commit(batch)
        }
        return store
    }

    static func contents(_ store: LogStore) throws -> [UInt64: [UInt8]] { try LogFixtures.values(of: store) }

    /// The store at `path` reopens with `expected`, sound.
    static func expectReopens(_ fileSystem: any FileSystem, at path: String = "/s", with expected: [UInt64: [UInt8]], _ context: String = "") throws {
        let reopened = try LogStore.open(at: path, options: options(), fileSystem: fileSystem, logger: .quiet)
        #expect(try contents(reopened) == expected, "\(context)")
        #expect(try reopened.verify().isSound, "\(context)")
        try reopened.close()
    }

    static func sizes(_ paths: [String], in memory: InMemoryFileSystem) throws -> [String: Int64] {
        var sizes: [String: Int64] = [:]
        for path in paths {
            let file = try memory.open(path, mode: .readOnly)
            sizes[path] = try file.size()
            try file.close()
        }
        return sizes
    }

    @Test func aRetiredFileIsCutInPiecesOnlyAfterTheSnapshotHoldingItLetsGo() throws {
        let memory = InMemoryFileSystem()
        let faults = FaultInjectingFileSystem(wrapping: memory)
        try Self.garbageStore(faults).close()
        // Reopened: the sealed segments are held read-only, as after any restart.
        let store = try LogStore.open(at: "/s", options: Self.options(), fileSystem: faults, logger: .quiet)
        store.reclaimer.pieceBytes.store(1 << 10, ordering: .relaxed)
        let segments = try memory.contentsOfDirectory("/s/segments").map { "/s/segments/" + $0 }
        let sizesBefore = try Self.sizes(segments, in: memory)
        let before = try Self.contents(store)
        let snapshot = try store.snapshot()
        faults.isRecording = true
        let report = try store.compact(force: true)
        #expect(report.segmentsCompacted > 0)
        // Creating a file removes its name first: the retired ones are those that were there.
        let retired = Set(faults.events.filter { $0.operation == .remove }.map { $0.paths[0] }).intersection(segments)
        #expect(!retired.isEmpty)
        // Unlinked, and still whole for the snapshot that holds them.
        for path in retired { #expect(!memory.exists(path)) }
        store.reclaimer.waitUntilIdle()
        #expect(!faults.events.contains { $0.operation == .truncate && retired.contains($0.paths[0]) }, "a file a snapshot holds was cut")
        #expect(try Self.contents(snapshot) == before)
        try snapshot.close()
        store.reclaimer.waitUntilIdle()
        for path in retired {
            let cuts = faults.events.filter { $0.operation == .truncate && $0.paths[0] == path }.count
            let size = try #require(sizesBefore[path])
            #expect(Int64(cuts) == (size + 1023) / 1024, "\(path): \(cuts) cuts of a \(size)-byte file")
        }
        #expect(try Self.contents(store) == before)
        try store.close()
        #expect(memory.openFileCount == 0)
        try Self.expectReopens(memory, with: before)
    }

    @Test func aFileABackupLinkedIsNeverCut() throws {
        let memory = InMemoryFileSystem()
        let store = try Self.garbageStore(memory)
        store.reclaimer.pieceBytes.store(1 << 10, ordering: .relaxed)
        // A hard link elsewhere, as a backup makes of each sealed file.
        try memory.createDirectory("/backup")
        let segments = try memory.contentsOfDirectory("/s/segments")
        for name in segments { try memory.link("/s/segments/" + name, to: "/backup/" + name) }
        let linked = try Self.sizes(segments.map { "/backup/" + $0 }, in: memory)
        #expect(try store.compact(force: true).segmentsCompacted > 0)
        store.reclaimer.waitUntilIdle()
        #expect(try Self.sizes(segments.map { "/backup/" + $0 }, in: memory) == linked)
        try store.close()
        #expect(memory.openFileCount == 0)
    }

    /// On disk: sealed segments held read-only since open are cut through a handle
    /// opened for writing before their names went, and a backup taken before the
    /// compaction, whose sealed files are hard links of the store's, stays whole.
    @Test func onDiskARestartedStoresSealedFilesAreCutAndABackupsLinksAreNot() throws {
        let dir = try TemporaryDirectory("reclaimer")
        defer { dir.remove() }
        let faults = FaultInjectingFileSystem(wrapping: POSIXFileSystem())
        let path = dir.appending("store")
        try Self.garbageStore(at: path, faults).close()
        let first = try LogStore.open(at: path, options: Self.options(), fileSystem: faults, logger: .quiet)
        let before = try Self.contents(first)
        let backup = dir.appending("backup")
        _ = try first.backup(to: backup)
        try Self.garbageStore(at: path, faults, existing: first, rounds: 3).close()
        // Restarted once more: every sealed file is held read-only.
        let store = try LogStore.open(at: path, options: Self.options(), fileSystem: faults, logger: .quiet)
        let after = try Self.contents(store)
        let segments = Set(try faults.contentsOfDirectory(path + "/segments").map { path + "/segments/" + $0 })
        // The backup links the segments sealed when it was taken and copies the active one.
        func inode(_ path: String) -> Int? { (try? FileManager.default.attributesOfItem(atPath: path))?[.systemFileNumber] as? Int }
        let linked = Set(segments.filter { file in inode(file) == inode(backup + "/segments/" + file.split(separator: "/").last!) })
        #expect(!linked.isEmpty)
        faults.isRecording = true
        #expect(try store.compact(force: true).segmentsCompacted > 0)
        store.reclaimer.waitUntilIdle()
        let retired = Set(faults.events.filter { $0.operation == .remove }.map { $0.paths[0] }).intersection(segments)
        let cut = Set(faults.events.filter { $0.operation == .truncate }.map { $0.paths[0] })
        #expect(!retired.intersection(linked).isEmpty && !retired.subtracting(linked).isEmpty)
        // Segments the backup links were not cut; the others were.
        for file in retired {
            #expect(cut.contains(file) == !linked.contains(file), "\(file): linked by the backup \(linked.contains(file)), cut \(cut.contains(file))")
        }
        #expect(try Self.contents(store) == after)
        try store.close()
        try Self.expectReopens(POSIXFileSystem(), at: backup, with: before, "the backup")
    }

    /// A read-only store (another process's, or another in this one) holds the files it
    /// opened: while it is registered, the writer cuts nothing, and the reader keeps
    /// reading what it had without a refresh. Once it closes, retired files are cut again.
    @Test(arguments: [false, true])
    func nothingIsCutWhileAReadOnlyStoreIsRegistered(onDisk: Bool) throws {
        let dir = try TemporaryDirectory("reclaimer-reader")
        defer { dir.remove() }
        let base: any FileSystem = onDisk ? POSIXFileSystem() : InMemoryFileSystem()
        let faults = FaultInjectingFileSystem(wrapping: base)
        let path = onDisk ? dir.appending("store") : "/s"
        let store = try Self.garbageStore(at: path, faults)
        store.reclaimer.pieceBytes.store(1 << 10, ordering: .relaxed)
        var readOnly = Self.options()
        readOnly.readOnly = true
        let reader = try LogStore.open(at: path, options: readOnly, fileSystem: faults, logger: .quiet)
        let before = try Self.contents(reader)
        faults.isRecording = true
        #expect(try store.compact(force: true).segmentsCompacted > 0)
        store.reclaimer.waitUntilIdle()
        #expect(!faults.events.contains { $0.operation == .truncate }, "a file was cut while a reader was registered")
        #expect(try Self.contents(reader) == before)
        #expect(try reader.verify().isSound)
        try reader.close()
        // Unregistered: the next compaction's retired files are cut.
        try Self.garbageStore(at: path, faults, existing: store, rounds: 3)
        #expect(try store.compact(force: true).segmentsCompacted > 0)
        store.reclaimer.waitUntilIdle()
        #expect(faults.events.contains { $0.operation == .truncate })
        try store.close()
    }

    @Test func aReaderIsRegisteredOnTheLockFileUntilItLetsGo() throws {
        let dir = try TemporaryDirectory("reader-lock")
        defer { dir.remove() }
        let fileSystem = POSIXFileSystem()
        let lockPath = dir.appending("LOCK")
        let writer = try fileSystem.lock(lockPath)
        #expect(!fileSystem.readersHold(lockPath))
        let first = try fileSystem.lockForReading(lockPath), second = try fileSystem.lockForReading(lockPath)
        #expect(fileSystem.readersHold(lockPath))
        first.unlock()
        #expect(fileSystem.readersHold(lockPath))
        second.unlock()
        #expect(!fileSystem.readersHold(lockPath))
        // The writer's flock is untouched by either.
        #expect(throws: StrataError.self) { try fileSystem.lock(lockPath) }
        writer.unlock()
    }

    /// A power loss or a kill while retired files are being cut: they were unlinked and
    /// the swap that retired them durable first, so the store opens with every value.
    @Test(.timeLimit(.minutes(1))) func aPowerLossOrAKillMidCutLosesNothing() throws {
        let memory = InMemoryFileSystem()
        let faults = FaultInjectingFileSystem(wrapping: memory)
        let store = try Self.garbageStore(faults)
        // Small pieces: the cut is still going on when the power goes.
        store.reclaimer.pieceBytes.store(64, ordering: .relaxed)
        let before = try Self.contents(store)
        faults.isRecording = true
        #expect(try store.compact(force: true).segmentsCompacted > 0)
        while !faults.events.contains(where: { $0.operation == .truncate }) { Thread.sleep(forTimeInterval: 0.001) }
        let crashed = memory.crashedCopy(), killed = memory.killedCopy()
        try store.close()
        for (name, image) in [("power loss", crashed), ("kill", killed)] { try Self.expectReopens(image, with: before, name) }
    }

    @Test func aFailedCutClosesTheFileAndLosesNothing() throws {
        let memory = InMemoryFileSystem()
        let faults = FaultInjectingFileSystem(wrapping: memory)
        let store = try Self.garbageStore(faults)
        let before = try Self.contents(store)
        let id = faults.inject(.fail(.truncate, errno: EIO, matching: .contains("/segments/")))
        let openBefore = memory.openFileCount
        #expect(try store.compact(force: true).segmentsCompacted > 0)
        store.reclaimer.waitUntilIdle()
        #expect(faults.timesFired(id) > 0)
        // The retired files are closed all the same: the store holds fewer than before.
        #expect(memory.openFileCount < openBefore)
        #expect(try Self.contents(store) == before)
        try store.close()
        #expect(memory.openFileCount == 0)
        try Self.expectReopens(memory, with: before)
    }

    @Test(.timeLimit(.minutes(1))) func closeEndsACutUnderWayAndLeavesNoFileOpen() throws {
        let memory = InMemoryFileSystem()
        let store = try Self.garbageStore(memory)
        // A cut of a byte at a time would take minutes: close must not wait for it.
        store.reclaimer.pieceBytes.store(1, ordering: .relaxed)
        let before = try Self.contents(store)
        #expect(try store.compact(force: true).segmentsCompacted > 0)
        try store.close()
        #expect(memory.openFileCount == 0)
        try Self.expectReopens(memory, with: before)
    }

    @Test func anUnlinkedFileIsCutInPiecesAndClosedAndANamedOneOnlyClosed() throws {
        let reclaimer = FileReclaimer()
        reclaimer.pieceBytes.store(10, ordering: .relaxed)
        let memory = InMemoryFileSystem()
        let faults = FaultInjectingFileSystem(wrapping: memory)
        for path in ["/unlinked", "/named"] {
            let file = try faults.open(path, mode: .create)
            try [UInt8](repeating: 1, count: 64).withUnsafeBytes { try file.write($0, at: 0) }
        }
        let unlinked = try faults.open("/unlinked", mode: .readWrite), named = try faults.open("/named", mode: .readWrite)
        try faults.remove("/unlinked")
        faults.isRecording = true
        reclaimer.adopt(unlinked)
        reclaimer.adopt(named)
        reclaimer.waitUntilIdle()
        #expect(faults.events.filter { $0.operation == .truncate }.map(\.paths) == Array(repeating: ["/unlinked"], count: 7))
        #expect(faults.events.filter { $0.operation == .close }.map(\.paths) == [["/unlinked"], ["/named"]])
        #expect(try memory.open("/named", mode: .readOnly).size() == 64)
    }
}
