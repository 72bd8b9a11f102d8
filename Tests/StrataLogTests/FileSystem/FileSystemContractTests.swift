#if canImport(Glibc)
import Glibc
#endif
import Testing
import StrataTestSupport
@testable import StrataLog

/// The `FileSystem` contract, run against the real file system and the test doubles so
/// that what passes in memory also holds on disk.
@Suite struct FileSystemContractTests {
    @Test(arguments: FileSystemKind.allCases)
    func createWriteReadAndSize(_ kind: FileSystemKind) throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        let path = box.path("a.seg")
        #expect(!box.fs.exists(path))
        let file = try box.fs.open(path, mode: .create)
        #expect(file.path == path)
        #expect(try file.size() == 0)
        try file.write([1, 2, 3, 4, 5], at: 0)
        #expect(try file.size() == 5)
        #expect(try file.readExactly(5, at: 0) == [1, 2, 3, 4, 5])
        try file.sync()
        try file.close()
        #expect(box.fs.exists(path))
        #expect(!box.fs.isDirectory(path))
        #expect(try box.fs.readFile(path) == [1, 2, 3, 4, 5])
    }

    @Test(arguments: FileSystemKind.allCases)
    func writesAtOffsetsOverwriteAndFillHolesWithZeros(_ kind: FileSystemKind) throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        let file = try box.fs.open(box.path("f"), mode: .create)
        defer { try? file.close() }
        try file.write([1, 2, 3, 4], at: 0)
        try file.write([9, 9], at: 1)
        try file.write([7], at: 6)
        #expect(try file.size() == 7)
        #expect(try file.readExactly(7, at: 0) == [1, 9, 9, 4, 0, 0, 7])
    }

    @Test(arguments: FileSystemKind.allCases)
    func readsStopAtEndOfFile(_ kind: FileSystemKind) throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        let file = try box.fs.open(box.path("f"), mode: .create)
        defer { try? file.close() }
        try file.write([1, 2, 3], at: 0)
        var buffer = [UInt8](repeating: 0xEE, count: 8)
        let got = try buffer.withUnsafeMutableBytes { try file.read(into: $0, at: 1) }
        #expect(got == 2)
        #expect(Array(buffer.prefix(2)) == [2, 3])
        let none = try buffer.withUnsafeMutableBytes { try file.read(into: $0, at: 10) }
        #expect(none == 0)
        expectFSError(.corrupt) { try file.readExactly(4, at: 0) }
    }

    @Test(arguments: FileSystemKind.allCases)
    func truncateCutsAndExtends(_ kind: FileSystemKind) throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        let file = try box.fs.open(box.path("f"), mode: .create)
        defer { try? file.close() }
        try file.write([1, 2, 3, 4, 5], at: 0)
        try file.truncate(to: 2)
        #expect(try file.size() == 2)
        try file.truncate(to: 4)
        #expect(try file.readExactly(4, at: 0) == [1, 2, 0, 0])
    }

    @Test(arguments: FileSystemKind.allCases)
    func openModes(_ kind: FileSystemKind) throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        let path = box.path("f")
        expectFSError(.io, errno: ENOENT) { try box.fs.open(path, mode: .readOnly) }
        expectFSError(.io) { try box.fs.open(path, mode: .readWrite) }
        try box.fs.writeFile(path, [1, 2, 3])
        // .create opens an existing file without truncating it.
        let again = try box.fs.open(path, mode: .create)
        #expect(try again.size() == 3)
        try again.close()
        let reader = try box.fs.open(path, mode: .readOnly)
        defer { try? reader.close() }
        expectFSError(.io) { try reader.write([0], at: 0) }
        #expect(try reader.readExactly(3, at: 0) == [1, 2, 3])
        let writer = try box.fs.open(path, mode: .readWrite)
        try writer.write([8], at: 3)
        try writer.close()
        #expect(try box.fs.readFile(path) == [1, 2, 3, 8])
    }

    @Test(arguments: FileSystemKind.allCases)
    func closedFileRefusesOperations(_ kind: FileSystemKind) throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        let file = try box.fs.open(box.path("f"), mode: .create)
        try file.write([1], at: 0)
        try file.close()
        try file.close()  // closing twice is harmless
        expectFSError(.io) { try file.readExactly(1, at: 0) }
        expectFSError(.io) { try file.write([2], at: 0) }
        expectFSError(.io) { try file.sync() }
        expectFSError(.io) { try file.size() }
    }

    @Test(arguments: FileSystemKind.allCases)
    func aClosedHandleNeverTouchesTheFileThatReusedItsDescriptor(_ kind: FileSystemKind) throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        let stale = try box.fs.open(box.path("a"), mode: .create)
        try stale.close()
        // On POSIX this open usually gets the descriptor number `stale` had.
        let fresh = try box.fs.open(box.path("b"), mode: .create)
        defer { try? fresh.close() }
        expectFSError(.io) { try stale.write([9], at: 0) }
        expectFSError(.io) { try stale.truncate(to: 10) }
        #expect(try fresh.size() == 0)
    }

    @Test(arguments: FileSystemKind.allCases)
    func renameReplacesTheDestination(_ kind: FileSystemKind) throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        let (temp, manifest) = (box.path("MANIFEST.tmp"), box.path("MANIFEST"))
        try box.fs.writeFile(manifest, [1])
        try box.fs.writeFile(temp, [2, 2])
        let oldReader = try box.fs.open(manifest, mode: .readOnly)
        defer { try? oldReader.close() }
        try box.fs.rename(temp, to: manifest)
        try box.fs.syncDirectory(box.root)
        #expect(!box.fs.exists(temp))
        #expect(try box.fs.readFile(manifest) == [2, 2])
        // A handle keeps the file it opened, replaced or not.
        #expect(try oldReader.readExactly(1, at: 0) == [1])
        expectFSError(.io) { try box.fs.rename(box.path("missing"), to: manifest) }
    }

    @Test(arguments: FileSystemKind.allCases)
    func renameMovesDirectories(_ kind: FileSystemKind) throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        try box.fs.createDirectory(box.path("staging/segments"))
        try box.fs.writeFile(box.path("staging/segments/000001.seg"), [1])
        try box.fs.rename(box.path("staging"), to: box.path("live"))
        #expect(!box.fs.exists(box.path("staging")))
        #expect(try box.fs.readFile(box.path("live/segments/000001.seg")) == [1])
    }

    @Test(arguments: FileSystemKind.allCases)
    func removeIsRecursiveAndMissingIsFine(_ kind: FileSystemKind) throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        try box.fs.createDirectory(box.path("store/segments"))
        try box.fs.writeFile(box.path("store/segments/000001.seg"), [1])
        try box.fs.writeFile(box.path("store/MANIFEST"), [2])
        let reader = try box.fs.open(box.path("store/MANIFEST"), mode: .readOnly)
        defer { try? reader.close() }
        try box.fs.remove(box.path("store"))
        #expect(!box.fs.exists(box.path("store")))
        #expect(try box.fs.contentsOfDirectory(box.root) == [])
        // An unlinked file stays readable through an open handle, as compaction relies on.
        #expect(try reader.readExactly(1, at: 0) == [2])
        try box.fs.remove(box.path("store"))
        try box.fs.remove(box.path("never/was"))
    }

    @Test(arguments: FileSystemKind.allCases)
    func directoriesListSortedNames(_ kind: FileSystemKind) throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        try box.fs.createDirectory(box.path("a/b/c"))
        try box.fs.createDirectory(box.path("a/b/c"))  // exists: fine
        #expect(box.fs.isDirectory(box.path("a/b")))
        for name in ["000010.seg", "000002.seg", "MANIFEST", "LOCK"] {
            try box.fs.writeFile(box.path("a/" + name), [])
        }
        #expect(try box.fs.contentsOfDirectory(box.path("a")) == ["000002.seg", "000010.seg", "LOCK", "MANIFEST", "b"])
        expectFSError(.io, errno: ENOENT) { try box.fs.contentsOfDirectory(box.path("zz")) }
        expectFSError(.io) { try box.fs.contentsOfDirectory(box.path("a/LOCK")) }
        expectFSError(.io) { try box.fs.createDirectory(box.path("a/LOCK")) }
        expectFSError(.io) { try box.fs.createDirectory(box.path("a/LOCK/x")) }
        expectFSError(.io) { try box.fs.open(box.path("nodir/f"), mode: .create) }
        expectFSError(.io) { try box.fs.syncDirectory(box.path("zz")) }
        try box.fs.syncDirectory(box.path("a"))
    }

    @Test(arguments: FileSystemKind.allCases)
    func aSecondLockOnTheSamePathIsRefused(_ kind: FileSystemKind) throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        let path = box.path("LOCK")
        // For POSIX, both locks come from this process on separate descriptors: flock
        // locks belong to open file descriptions, so the second is refused all the same.
        let first = try box.fs.lock(path)
        #expect(box.fs.exists(path))
        expectFSError(.storeLocked) { try box.fs.lock(path) }
        let other = try box.fs.lock(box.path("OTHER.LOCK"))
        first.unlock()
        first.unlock()  // twice is harmless
        let second = try box.fs.lock(path)
        expectFSError(.storeLocked) { try box.fs.lock(path) }
        second.unlock()
        other.unlock()
    }

    @Test(arguments: FileSystemKind.allCases)
    func concurrentWritersOnSeparateFiles(_ kind: FileSystemKind) async throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        let fs = box.fs
        let root = box.root
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let file = try fs.open("\(root)/w\(writer)", mode: .create)
                    for index in 0..<100 {
                        try file.write([UInt8(writer), UInt8(index)], at: Int64(index * 2))
                    }
                    try file.sync()
                    try file.close()
                }
            }
            try await group.waitForAll()
        }
        for writer in 0..<4 {
            let bytes = try fs.readFile("\(root)/w\(writer)")
            #expect(bytes.count == 200)
            #expect(bytes[199] == 99 && bytes[198] == UInt8(writer))
        }
    }
}
