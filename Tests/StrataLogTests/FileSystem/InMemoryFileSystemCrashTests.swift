#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import StrataLog

/// What survives `InMemoryFileSystem.crash()`: only what fsync and a directory fsync
/// made durable (DESIGN.md, "Durability protocol").
@Suite struct InMemoryFileSystemCrashTests {
    /// A store directory whose own entry is durable, as a created store's would be.
    private func makeStore() throws -> InMemoryFileSystem {
        let fs = InMemoryFileSystem()
        try fs.createDirectory("/db/segments")
        try fs.syncDirectory("/")
        try fs.syncDirectory("/db")
        return fs
    }

    @Test func unsyncedDataIsLostSyncedDataKept() throws {
        let fs = try makeStore()
        let file = try fs.open("/db/segments/000001.seg", mode: .create)
        try fs.syncDirectory("/db/segments")
        try file.write([1, 2, 3], at: 0)
        try file.sync()
        try file.write([4, 5], at: 3)
        #expect(fs.bytes(of: "/db/segments/000001.seg") == [1, 2, 3, 4, 5])
        #expect(fs.durableBytes(of: "/db/segments/000001.seg") == [1, 2, 3])
        fs.crash()
        #expect(fs.bytes(of: "/db/segments/000001.seg") == [1, 2, 3])
    }

    @Test func unsyncedOverwriteAndTruncateAreUndone() throws {
        let fs = try makeStore()
        let file = try fs.open("/db/f", mode: .create)
        try fs.syncDirectory("/db")
        try file.write([1, 2, 3, 4], at: 0)
        try file.sync()
        try file.write([9], at: 1)
        try file.truncate(to: 2)
        try file.write([7, 7, 7], at: 2)
        #expect(fs.bytes(of: "/db/f") == [1, 9, 7, 7, 7])
        fs.crash()
        #expect(fs.bytes(of: "/db/f") == [1, 2, 3, 4])
    }

    @Test(arguments: [0, 2, 100])
    func aFileCutBelowItsDurableLengthComesBackWhole(keeping unsyncedBytes: Int) throws {
        let fs = try makeStore()
        let file = try fs.open("/db/f", mode: .create)
        try fs.syncDirectory("/db")
        try file.write([1, 2, 3, 4], at: 0)
        try file.sync()
        try file.truncate(to: 1)
        fs.crash(keepingUnsyncedBytes: unsyncedBytes)
        #expect(fs.bytes(of: "/db/f") == [1, 2, 3, 4])
    }

    @Test func aTornAppendAfterAnUnsyncedOverwriteKeepsTheDurableBytes() throws {
        let fs = try makeStore()
        let file = try fs.open("/db/f", mode: .create)
        try fs.syncDirectory("/db")
        try file.write([1, 2], at: 0)
        try file.sync()
        try file.write([9, 9, 3, 4, 5], at: 0)
        fs.crash(keepingUnsyncedBytes: 2)
        #expect(fs.bytes(of: "/db/f") == [1, 2, 3, 4])
    }

    @Test func aFileWhoseDirectoryWasNeverSyncedIsLost() throws {
        let fs = try makeStore()
        let file = try fs.open("/db/segments/000001.seg", mode: .create)
        try file.write([1], at: 0)
        try file.sync()
        #expect(fs.durableBytes(of: "/db/segments/000001.seg") == nil)
        fs.crash()
        #expect(!fs.exists("/db/segments/000001.seg"))
        #expect(try fs.contentsOfDirectory("/db/segments") == [])
    }

    @Test func aCreatedDirectoryNeedsItsParentSynced() throws {
        let fs = InMemoryFileSystem()
        try fs.createDirectory("/a/b")
        try fs.syncDirectory("/")
        fs.crash()
        #expect(fs.isDirectory("/a"))
        #expect(!fs.exists("/a/b"))
    }

    @Test func renameWithoutDirectorySyncIsLost() throws {
        let fs = try makeStore()
        try fs.writeFile("/db/MANIFEST", [1])
        try syncFile(fs, "/db/MANIFEST")
        try fs.syncDirectory("/db")
        try fs.writeFile("/db/MANIFEST.tmp", [2])
        try syncFile(fs, "/db/MANIFEST.tmp")
        try fs.rename("/db/MANIFEST.tmp", to: "/db/MANIFEST")
        #expect(fs.bytes(of: "/db/MANIFEST") == [2])
        fs.crash()
        // Neither the new file's entry nor the rename reached the disk.
        #expect(fs.bytes(of: "/db/MANIFEST") == [1])
        #expect(!fs.exists("/db/MANIFEST.tmp"))
    }

    @Test func renameOfADurableFileComesBackUnderItsOldName() throws {
        let fs = try makeStore()
        try fs.writeFile("/db/MANIFEST.tmp", [2])
        try syncFile(fs, "/db/MANIFEST.tmp")
        try fs.syncDirectory("/db")
        try fs.rename("/db/MANIFEST.tmp", to: "/db/MANIFEST")
        fs.crash()
        #expect(fs.bytes(of: "/db/MANIFEST.tmp") == [2])
        #expect(!fs.exists("/db/MANIFEST"))
    }

    @Test func renameWithDirectorySyncIsKept() throws {
        let fs = try makeStore()
        try fs.writeFile("/db/MANIFEST", [1])
        try syncFile(fs, "/db/MANIFEST")
        try fs.syncDirectory("/db")
        try fs.writeFile("/db/MANIFEST.tmp", [2])
        try syncFile(fs, "/db/MANIFEST.tmp")
        try fs.rename("/db/MANIFEST.tmp", to: "/db/MANIFEST")
        try fs.syncDirectory("/db")
        fs.crash()
        #expect(fs.bytes(of: "/db/MANIFEST") == [2])
        #expect(try fs.contentsOfDirectory("/db") == ["MANIFEST", "segments"])
    }

    @Test func removeWithoutDirectorySyncComesBack() throws {
        let fs = try makeStore()
        try fs.writeFile("/db/segments/000001.seg", [1, 1])
        try syncFile(fs, "/db/segments/000001.seg")
        try fs.syncDirectory("/db/segments")
        try fs.remove("/db/segments")
        #expect(!fs.exists("/db/segments"))
        fs.crash()
        #expect(fs.bytes(of: "/db/segments/000001.seg") == [1, 1])
        try fs.remove("/db/segments/000001.seg")
        try fs.syncDirectory("/db/segments")
        fs.crash()
        #expect(!fs.exists("/db/segments/000001.seg"))
    }

    @Test func handlesDieAndLocksAreReleasedInACrash() throws {
        let fs = try makeStore()
        let file = try fs.open("/db/f", mode: .create)
        let lock = try fs.lock("/db/LOCK")
        #expect(fs.openFileCount == 1)
        fs.crash()
        #expect(fs.openFileCount == 0)
        expectFSError(.io, errno: EIO) { try file.write([1], at: 0) }
        expectFSError(.io, errno: EIO) { try file.sync() }
        #expect(!fs.isLocked("/db/LOCK"))
        let relock = try fs.lock("/db/LOCK")
        lock.unlock()  // the dead lock must not release the new one
        #expect(fs.isLocked("/db/LOCK"))
        relock.unlock()
        #expect(!fs.isLocked("/db/LOCK"))
    }

    @Test func aTornAppendKeepsAPrefixOfTheUnsyncedTail() throws {
        let fs = try makeStore()
        let file = try fs.open("/db/segments/000001.seg", mode: .create)
        try fs.syncDirectory("/db/segments")
        try file.write([1, 2], at: 0)
        try file.sync()
        try file.write([3, 4, 5, 6], at: 2)
        fs.crash(keepingUnsyncedBytes: 3)
        #expect(fs.bytes(of: "/db/segments/000001.seg") == [1, 2, 3, 4, 5])
        // What survived is on disk now: a second crash keeps it.
        fs.crash()
        #expect(fs.bytes(of: "/db/segments/000001.seg") == [1, 2, 3, 4, 5])
    }

    @Test func makeAllDurableIsAFixturesStartingPoint() throws {
        let fs = InMemoryFileSystem()
        try fs.createDirectory("/db/segments")
        try fs.writeFile("/db/segments/000001.seg", [1, 2])
        fs.makeAllDurable()
        try fs.writeFile("/db/segments/000002.seg", [3])
        fs.crash()
        #expect(try fs.contentsOfDirectory("/db/segments") == ["000001.seg"])
        #expect(fs.bytes(of: "/db/segments/000001.seg") == [1, 2])
    }

    @Test func setBytesEditsTheDiskDurably() throws {
        let fs = try makeStore()
        try fs.setBytes([1, 2, 3], of: "/db/segments/000001.seg")
        var bytes = try #require(fs.bytes(of: "/db/segments/000001.seg"))
        bytes[1] ^= 0xFF
        try fs.setBytes(bytes, of: "/db/segments/000001.seg")
        fs.crash()
        #expect(fs.bytes(of: "/db/segments/000001.seg") == [1, 0xFD, 3])
        #expect(fs.fileSize("/db/segments/000001.seg") == 3)
        #expect(fs.fileSize("/db/segments") == nil)
        #expect(fs.bytes(of: "/db/missing") == nil)
        expectFSError(.io) { try fs.setBytes([1], of: "/nowhere/f") }
        expectFSError(.io) { try fs.setBytes([1], of: "/db/segments") }
    }

    @Test func totalBytesCountsReachableFilesAndSpaceIsReclaimed() throws {
        let fs = try makeStore()
        try fs.writeFile("/db/segments/000001.seg", [UInt8](repeating: 1, count: 100))
        try fs.writeFile("/db/MANIFEST", [UInt8](repeating: 2, count: 20))
        #expect(fs.totalBytes == 120)
        try fs.remove("/db/segments/000001.seg")
        #expect(fs.totalBytes == 20)
        try fs.syncDirectory("/db/segments")
        #expect(fs.state.withLock { $0.files.count } == 1)
    }

    @Test func droppedHandlesAndLocksAreReleased() throws {
        let fs = try makeStore()
        do {
            _ = try fs.open("/db/f", mode: .create)
            _ = try fs.lock("/db/LOCK")
        }
        #expect(fs.openFileCount == 0)
        #expect(!fs.isLocked("/db/LOCK"))
    }

    @Test func pathsAreNormalized() throws {
        let fs = InMemoryFileSystem()
        try fs.createDirectory("/db/./x/../y/")
        #expect(try fs.contentsOfDirectory("/db") == ["y"])
        #expect(fs.isDirectory("//db/y"))
        #expect(fs.isDirectory("/"))
        let lock = try fs.lock("/db/LOCK")
        expectFSError(.storeLocked) { try fs.lock("/db/y/../LOCK") }
        lock.unlock()
    }

    private func syncFile(_ fs: InMemoryFileSystem, _ path: String) throws {
        let file = try fs.open(path, mode: .readWrite)
        try file.sync()
        try file.close()
    }
}
