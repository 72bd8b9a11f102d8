import Testing
import StrataTestSupport
@testable import StrataLog

/// `FileSystem.link(_:to:)` keeps POSIX's contract on every file system: two names of
/// one file, either removable alone; an existing destination or a missing source is
/// an error with its errno.
@Suite struct FileSystemLinkTests {
    @Test(arguments: FileSystemKind.allCases)
    func aLinkIsASecondNameOfTheSameBytes(_ kind: FileSystemKind) throws {
        let box = try FileSystemSandbox(kind)
        defer { box.remove() }
        try box.fs.writeFile(box.path("a"), [1, 2, 3])
        try box.fs.link(box.path("a"), to: box.path("b"))
        #expect(try box.fs.readFile(box.path("b")) == [1, 2, 3])
        // A write through one name is seen through the other: one file, two names.
        let file = try box.fs.open(box.path("a"), mode: .readWrite)
        try file.write([9], at: 3)
        try file.close()
        #expect(try box.fs.readFile(box.path("b")) == [1, 2, 3, 9])
        try box.fs.remove(box.path("a"))
        #expect(!box.fs.exists(box.path("a")))
        #expect(try box.fs.readFile(box.path("b")) == [1, 2, 3, 9])

        try box.fs.writeFile(box.path("c"), [4])
        expectFSError(.io, errno: 17 /* EEXIST */) { try box.fs.link(box.path("c"), to: box.path("b")) }
        #expect(try box.fs.readFile(box.path("b")) == [1, 2, 3, 9])
        expectFSError(.io, errno: 2 /* ENOENT */) { try box.fs.link(box.path("missing"), to: box.path("d")) }
    }

    @Test func aFaultFailsALinkOnEitherName() throws {
        let fs = FaultInjectingFileSystem(wrapping: InMemoryFileSystem())
        try fs.createDirectory("/d")
        try fs.writeFile("/d/source", [1])
        let fault = fs.inject(.fail(.link, errno: 18 /* EXDEV */, matching: "target"))
        expectFSError(.io, errno: 18) { try fs.link("/d/source", to: "/d/target") }
        #expect(!fs.exists("/d/target"))
        #expect(fs.timesFired(fault) == 1 && fs.count(of: .link) == 1)
        try fs.link("/d/source", to: "/d/other")
        #expect(try fs.readFile("/d/other") == [1])
    }

    @Test func anInMemoryLinkIsDurableOnlyAfterItsDirectoryIsSynced() throws {
        let fs = InMemoryFileSystem()
        try fs.createDirectory("/d")
        try fs.writeFile("/d/a", [5])
        fs.makeAllDurable()
        try fs.link("/d/a", to: "/d/b")
        fs.crash()
        #expect(!fs.exists("/d/b"))
        try fs.link("/d/a", to: "/d/b")
        try fs.syncDirectory("/d")
        fs.crash()
        #expect(try fs.readFile("/d/b") == [5])
    }
}
