import StrataLog
import StrataTestSupport
import Testing

/// The file systems that must keep the `FileSystem` contract.
enum FileSystemKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case posix
    case inMemory
    /// A fault-injecting wrapper with no fault injected must be invisible.
    case faultInjectingPassThrough

    var description: String { rawValue }
}

/// A file system and an empty directory in it to work in.
struct FileSystemSandbox {
    let fs: any FileSystem
    let root: String
    private let temporary: TemporaryDirectory?

    init(_ kind: FileSystemKind) throws {
        switch kind {
        case .posix:
            let temporary = try TemporaryDirectory("strata-fs")
            self.temporary = temporary
            fs = POSIXFileSystem()
            root = temporary.path
        case .inMemory, .faultInjectingPassThrough:
            let memory = InMemoryFileSystem()
            temporary = nil
            fs = kind == .inMemory ? memory : FaultInjectingFileSystem(wrapping: memory)
            root = "/sandbox"
            try fs.createDirectory(root)
        }
    }

    func path(_ relative: String) -> String { root + "/" + relative }

    func remove() { temporary?.remove() }
}

extension FileSystem {
    /// Creates (or opens) a file, writes `bytes` at 0 and closes it.
    func writeFile(_ path: String, _ bytes: [UInt8]) throws {
        let file = try open(path, mode: .create)
        try file.write(bytes, at: 0)
        try file.close()
    }

    /// The whole content of a file.
    func readFile(_ path: String) throws -> [UInt8] {
        let file = try open(path, mode: .readOnly)
        defer { try? file.close() }
        return try file.readExactly(Int(try file.size()), at: 0)
    }
}

/// Expects `body` to throw a `StrataError` with `code` (and `errno`, when given); returns it.
@discardableResult
func expectFSError<R>(
    _ code: StrataError.Code, errno: Int32? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) -> StrataError? {
    let error = #expect(throws: StrataError.self, sourceLocation: sourceLocation) { _ = try body() }
    #expect(error?.code == code, sourceLocation: sourceLocation)
    if let errno { #expect(error?.errno == errno, sourceLocation: sourceLocation) }
    return error
}
