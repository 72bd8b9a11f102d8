#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import StrataLog

/// Every kind of fault `FaultInjectingFileSystem` injects, over an `InMemoryFileSystem`.
@Suite struct FaultInjectingFileSystemTests {
    private let memory = InMemoryFileSystem()
    private let fs: FaultInjectingFileSystem

    init() throws {
        fs = FaultInjectingFileSystem(wrapping: memory)
        try fs.createDirectory("/db/segments")
    }

    @Test func failEverySyncOnMatchingPaths() throws {
        let id = fs.inject(.fail(.sync, errno: EIO, matching: "segments/"))
        let segment = try fs.open("/db/segments/000001.seg", mode: .create)
        let manifest = try fs.open("/db/MANIFEST", mode: .create)
        memory.makeAllDurable()
        try segment.write([1], at: 0)
        let error = expectFSError(.io, errno: EIO) { try segment.sync() }
        #expect(error?.path == "/db/segments/000001.seg")
        #expect(error?.context["injectedFault"] != nil)
        expectFSError(.io, errno: EIO) { try segment.sync() }
        try manifest.sync()
        #expect(fs.timesFired(id) == 2)
        #expect(fs.count(of: .sync) == 3)
        // The failed fsync never reached the disk.
        #expect(memory.durableBytes(of: "/db/segments/000001.seg") == [])
    }

    @Test func failOnlyTheNthMatchingOperation() throws {
        let file = try fs.open("/db/segments/000001.seg", mode: .create)
        try file.sync()  // before injection: not counted by the trigger
        fs.inject(.fail(.sync, matching: "segments/", on: .nth(3)))
        try file.sync()
        try file.sync()
        expectFSError(.io, errno: EIO) { try file.sync() }
        try file.sync()
        #expect(fs.count(of: .sync) == 5)
    }

    @Test func failFromTheNthOnAndTransientFailures() throws {
        let file = try fs.open("/db/f", mode: .create)
        let from = fs.inject(.fail(.write, errno: ENOSPC, on: .fromNth(2)))
        try file.write([1], at: 0)
        expectFSError(.io, errno: ENOSPC) { try file.write([2], at: 1) }
        expectFSError(.io, errno: ENOSPC) { try file.write([3], at: 1) }
        fs.removeFault(from)
        #expect(fs.timesFired(from) == 2)
        fs.inject(.fail(.truncate, on: .first(2)))
        expectFSError(.io) { try file.truncate(to: 0) }
        expectFSError(.io) { try file.truncate(to: 0) }
        try file.truncate(to: 0)
        fs.inject(.fail(.read, on: .once))
        expectFSError(.io, errno: EIO) { try file.readExactly(0, at: 0) }
        _ = try file.readExactly(0, at: 0)
    }

    @Test func failRenameAndDirectorySyncOfTheManifest() throws {
        try fs.createDirectory("/db/segments")
        try fs.writeFile("/db/MANIFEST.tmp", [1])
        fs.inject(.fail(.rename, matching: "MANIFEST"))
        fs.inject(.fail(.syncDirectory, matching: .hasSuffix("/db")))
        expectFSError(.io) { try fs.rename("/db/MANIFEST.tmp", to: "/db/MANIFEST") }
        #expect(fs.exists("/db/MANIFEST.tmp") && !fs.exists("/db/MANIFEST"))
        expectFSError(.io) { try fs.syncDirectory("/db") }
        try fs.syncDirectory("/db/segments")
        // A rename matches on its destination too.
        try fs.writeFile("/db/a", [2])
        expectFSError(.io) { try fs.rename("/db/a", to: "/db/MANIFEST") }
        #expect(fs.counts[.rename] == 2)
    }

    @Test func failCreateButNotPlainOpen() throws {
        try fs.writeFile("/db/segments/000001.seg", [1])
        fs.inject(.fail(.create, errno: ENOSPC, matching: "segments/"))
        expectFSError(.io, errno: ENOSPC) { try fs.open("/db/segments/000002.seg", mode: .create) }
        #expect(!fs.exists("/db/segments/000002.seg"))
        let reader = try fs.open("/db/segments/000001.seg", mode: .readOnly)
        try reader.close()
        #expect(fs.count(of: .create) == 2 && fs.count(of: .open) == 1)
    }

    @Test func failDirectoryOperationsAndLock() throws {
        fs.inject(.fail(.createDirectory))
        fs.inject(.fail(.listDirectory))
        fs.inject(.fail(.remove))
        fs.inject(.fail(.lock))
        expectFSError(.io) { try fs.createDirectory("/db/blobs") }
        expectFSError(.io) { try fs.contentsOfDirectory("/db") }
        expectFSError(.io) { try fs.remove("/db/segments") }
        expectFSError(.io) { try fs.lock("/db/LOCK") }
        #expect(fs.isDirectory("/db/segments"))
        #expect(!fs.exists("/db/blobs"))
        fs.clearFaults()
        #expect(fs.faults.isEmpty)
        #expect(fs.totalFaultsFired == 4)
        try fs.createDirectory("/db/blobs")
        try fs.lock("/db/LOCK").unlock()
    }

    @Test func aFailedCloseStillCloses() throws {
        fs.inject(.fail(.close))
        let file = try fs.open("/db/f", mode: .create)
        expectFSError(.io) { try file.close() }
        #expect(memory.openFileCount == 0)
    }

    @Test func shortWriteLeavesThePartialBytes() throws {
        let file = try fs.open("/db/segments/000001.seg", mode: .create)
        try file.write([1, 2], at: 0)
        fs.inject(.shortWrite(keeping: 3, matching: "segments/", on: .once))
        let error = expectFSError(.io, errno: ENOSPC) { try file.write([3, 4, 5, 6, 7], at: 2) }
        #expect(error?.offset == 5)
        #expect(memory.bytes(of: "/db/segments/000001.seg") == [1, 2, 3, 4, 5])
        #expect(fs.bytesWritten == 5)
        try file.write([6], at: 5)
        #expect(memory.bytes(of: "/db/segments/000001.seg") == [1, 2, 3, 4, 5, 6])
    }

    @Test func aDiskThatFillsUp() throws {
        let file = try fs.open("/db/segments/000001.seg", mode: .create)
        let full = fs.inject(.diskFull(afterBytes: 10))
        try file.write([UInt8](repeating: 1, count: 6), at: 0)
        // The write that crosses the line stores what fits.
        expectFSError(.io, errno: ENOSPC) { try file.write([UInt8](repeating: 2, count: 6), at: 6) }
        #expect(memory.fileSize("/db/segments/000001.seg") == 10)
        expectFSError(.io, errno: ENOSPC) { try file.write([3], at: 10) }
        expectFSError(.io, errno: ENOSPC) { try file.truncate(to: 20) }
        expectFSError(.io, errno: ENOSPC) { try fs.open("/db/segments/000002.seg", mode: .create) }
        expectFSError(.io, errno: ENOSPC) { try fs.createDirectory("/db/blobs") }
        // What frees space or makes things durable still works.
        try file.truncate(to: 4)
        try file.sync()
        #expect(try file.readExactly(4, at: 0) == [1, 1, 1, 1])
        try fs.rename("/db/segments/000001.seg", to: "/db/segments/000009.seg")
        try fs.syncDirectory("/db/segments")
        #expect(fs.timesFired(full) == 5)
        fs.clearFaults()
        try file.write([3], at: 4)
    }

    @Test func countsAreKeptPerKindAndCanBeReset() throws {
        let file = try fs.open("/db/f", mode: .create)
        try file.write([1, 2, 3], at: 0)
        try file.sync()
        _ = try file.size()
        try file.close()
        #expect(fs.counts == [.createDirectory: 1, .create: 1, .write: 1, .sync: 1, .size: 1, .close: 1])
        #expect(fs.bytesWritten == 3)
        fs.resetCounts()
        #expect(fs.counts.isEmpty && fs.bytesWritten == 0)
    }

    @Test func recordingShowsTheDurabilityProtocolInOrder() throws {
        fs.isRecording = true
        fs.inject(.fail(.syncDirectory, on: .once))
        try fs.writeFile("/db/MANIFEST.tmp", [1])
        try fs.rename("/db/MANIFEST.tmp", to: "/db/MANIFEST")
        expectFSError(.io) { try fs.syncDirectory("/db") }
        fs.isRecording = false
        try fs.syncDirectory("/db")
        #expect(fs.events == [
            .init(operation: .create, paths: ["/db/MANIFEST.tmp"]),
            .init(operation: .write, paths: ["/db/MANIFEST.tmp"]),
            .init(operation: .close, paths: ["/db/MANIFEST.tmp"]),
            .init(operation: .rename, paths: ["/db/MANIFEST.tmp", "/db/MANIFEST"]),
            .init(operation: .syncDirectory, paths: ["/db"], injectedErrno: EIO),
        ])
    }

    @Test func faultsCanBeInjectedFromManyTasksAtOnce() async throws {
        let fs = fs
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    let file = try fs.open("/db/t\(task)", mode: .create)
                    for index in 0..<50 {
                        let id = fs.inject(.fail(.sync, matching: .contains("/t\(task)"), on: .once))
                        try file.write([UInt8(index)], at: Int64(index))
                        #expect(throws: StrataError.self) { try file.sync() }
                        fs.removeFault(id)
                        try file.sync()
                    }
                    try file.close()
                }
            }
            try await group.waitForAll()
        }
        #expect(fs.totalFaultsFired == 200)
        #expect(fs.count(of: .sync) == 400)
    }
}
