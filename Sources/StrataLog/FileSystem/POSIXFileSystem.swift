#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemPackage
import CStrataIO

/// The real file system: swift-system's `FileDescriptor` for `pread`/`pwrite`,
/// `fsync`, `sync_file_range` and `flock` from the C library.
public struct POSIXFileSystem: FileSystem {
    public init() {}

    public func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
        let access: FileDescriptor.AccessMode = mode == .readOnly ? .readOnly : .readWrite
        // Never through a symbolic link: a store directory can come from a backup or
        // an attacker, and a link named like a segment would otherwise let open read,
        // truncate or create a file outside the store (FORMAT.md §4.6).
        let options: FileDescriptor.OpenOptions = mode == .create ? [.create, .noFollow] : [.noFollow]
        do {
            let fd = try FileDescriptor.open(
                FilePath(path), access, options: options.union(.closeOnExec),
                permissions: mode == .create ? [.ownerReadWrite, .groupRead, .otherRead] : nil)
            return POSIXFile(path: path, fd: fd)
        } catch let errno as Errno {
            throw StrataError.fromErrno(errno, "cannot open file", path: path)
        }
    }

    public func createDirectory(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0 {
                let code = Glibc.errno
                // EEXIST is success only when what exists is a directory, not a file in the way.
                if code != EEXIST || !isDirectory(prefix) {
                    throw StrataError.fromErrno(Errno(rawValue: code), "cannot create directory", path: prefix)
                }
            }
        }
    }

    public func contentsOfDirectory(_ path: String) throws -> [String] {
        guard let dir = opendir(path) else {
            throw StrataError.fromErrno(Errno(rawValue: Glibc.errno), "cannot list directory", path: path)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    public func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    public func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    public func remove(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in try contentsOfDirectory(path) { try remove(path + "/" + name) }
            if rmdir(path) != 0 && Glibc.errno != ENOENT {
                throw StrataError.fromErrno(Errno(rawValue: Glibc.errno), "cannot remove directory", path: path)
            }
        } else if unlink(path) != 0 && Glibc.errno != ENOENT {
            throw StrataError.fromErrno(Errno(rawValue: Glibc.errno), "cannot remove file", path: path)
        }
    }

    public func rename(_ source: String, to destination: String) throws {
        if Glibc.rename(source, destination) != 0 {
            throw StrataError.fromErrno(Errno(rawValue: Glibc.errno), "cannot rename to \(destination)", path: source)
        }
    }

    public func link(_ source: String, to destination: String) throws {
        if Glibc.link(source, destination) != 0 {
            throw StrataError.fromErrno(Errno(rawValue: Glibc.errno), "cannot link to \(destination)", path: source)
        }
    }

    public func syncDirectory(_ path: String) throws {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw StrataError.fromErrno(Errno(rawValue: Glibc.errno), "cannot open directory to sync", path: path)
        }
        defer { Glibc.close(fd) }
        if fsync(fd) != 0 {
            throw StrataError.fromErrno(Errno(rawValue: Glibc.errno), "fsync of directory failed", path: path)
        }
    }

    public func lock(_ path: String) throws -> any FileLock {
        // Not through a symbolic link either: a planted LOCK link would create a file
        // elsewhere (FORMAT.md §4.6).
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else {
            throw StrataError.fromErrno(Errno(rawValue: Glibc.errno), "cannot open lock file", path: path)
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = Glibc.errno
            Glibc.close(fd)
            if code == EWOULDBLOCK {
                throw StrataError(.storeLocked, "store is locked: another process has it open for writing", path: path)
            }
            throw StrataError.fromErrno(Errno(rawValue: code), "cannot lock store", path: path)
        }
        return POSIXLock(fd: fd)
    }
}

/// Readers hold a shared open-file-description lock on LOCK's first byte, which the
/// writer's flock(2) on the same file does not touch; the writer asks for the
/// exclusive one without waiting, and lets it go at once.
extension POSIXFileSystem: ReaderLocking {
    package func lockForReading(_ path: String) throws -> any FileLock {
        // Opened read-only: a reader may have no right to write the store's directory.
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            throw StrataError.fromErrno(Errno(rawValue: Glibc.errno), "cannot open lock file", path: path)
        }
        // Without waiting, a bounded number of times: a writer holds the byte only for
        // its check, but where flock is emulated with byte-range locks (NFS, CIFS) the
        // writer's own lock covers it for as long as the writer runs.
        var code: Int32 = 0
        for attempt in 0..<Self.readerLockAttempts {
            if strata_lock_first_byte(fd, 0, 0) == 0 { return POSIXLock(fd: fd) }
            code = Glibc.errno
            guard code == EAGAIN || code == EACCES || code == EINTR else { break }
            if attempt > 0 { usleep(1_000) }
        }
        Glibc.close(fd)
        throw StrataError.fromErrno(Errno(rawValue: code), "cannot register as a reader of the store", path: path)
    }

    /// About a second of tries at a millisecond apart.
    static let readerLockAttempts = 1_000

    package func readersHold(_ path: String) -> Bool {
        let fd = Glibc.open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return true }
        defer { Glibc.close(fd) }
        // Taken: no reader holds it. Closing the descriptor lets it go.
        return strata_lock_first_byte(fd, 1, 0) != 0
    }
}

/// An open file descriptor. `FileDescriptor` is a value; this class owns its lifetime
/// so that a reader holding a segment keeps the descriptor open after compaction
/// unlinks the file.
final class POSIXFile: StorageFile, LinkCounting, @unchecked Sendable {
    // Sendable by construction: `fd` is set once; close() is called by the single owner.
    let path: String
    private let fd: FileDescriptor
    private var isClosed = false

    init(path: String, fd: FileDescriptor) {
        self.path = path
        self.fd = fd
    }

    deinit {
        if !isClosed { try? fd.close() }
    }

    /// A closed descriptor's number is soon reused by another open: without this
    /// check a stale handle would read or write someone else's file.
    private func checkOpen() throws {
        if isClosed { throw StrataError.fromErrno(.badFileDescriptor, "the file is closed", path: path) }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try checkOpen()
        var total = 0
        while total < buffer.count {
            let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[total...])
            let n: Int
            do {
                n = try fd.read(fromAbsoluteOffset: offset + Int64(total), into: rest, retryOnInterrupt: true)
            } catch let errno as Errno {
                throw StrataError.fromErrno(errno, "read failed", path: path, offset: offset + Int64(total))
            }
            if n == 0 { break }
            total += n
        }
        return total
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        try checkOpen()
        var total = 0
        while total < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[total...])
            do {
                total += try fd.write(toAbsoluteOffset: offset + Int64(total), rest, retryOnInterrupt: true)
            } catch let errno as Errno {
                throw StrataError.fromErrno(errno, "write failed", path: path, offset: offset + Int64(total))
            }
        }
    }

    func size() throws -> Int64 {
        try checkOpen()
        do {
            return try fd.seek(offset: 0, from: .end)
        } catch let errno as Errno {
            throw StrataError.fromErrno(errno, "cannot read file size", path: path)
        }
    }

    func linkCount() -> Int? {
        guard !isClosed else { return nil }
        var status = stat()
        guard fstat(fd.rawValue, &status) == 0 else { return nil }
        return Int(status.st_nlink)
    }

    func truncate(to size: Int64) throws {
        try checkOpen()
        if ftruncate(fd.rawValue, off_t(size)) != 0 {
            throw StrataError.fromErrno(Errno(rawValue: Glibc.errno), "truncate failed", path: path, offset: size)
        }
    }

    func sync() throws {
        try checkOpen()
        if fsync(fd.rawValue) != 0 {
            throw StrataError.fromErrno(Errno(rawValue: Glibc.errno), "fsync failed", path: path)
        }
    }

    func writeBack(_ range: Range<Int64>) throws {
        try checkOpen()
        guard !range.isEmpty else { return }
        if strata_write_back(fd.rawValue, range.lowerBound, Int64(range.count)) != 0 {
            throw StrataError.fromErrno(Errno(rawValue: Glibc.errno), "writeback failed", path: path, offset: range.lowerBound)
        }
    }

    func close() throws {
        guard !isClosed else { return }
        isClosed = true
        do { try fd.close() } catch let errno as Errno {
            throw StrataError.fromErrno(errno, "close failed", path: path)
        }
    }
}

final class POSIXLock: FileLock, @unchecked Sendable {
    // Sendable: the descriptor is only closed once, by unlock or deinit.
    private var fd: Int32

    init(fd: Int32) { self.fd = fd }

    func unlock() {
        guard fd >= 0 else { return }
        flock(fd, LOCK_UN)
        Glibc.close(fd)
        fd = -1
    }

    deinit { unlock() }
}

extension StrataError {
    /// Wraps an operating-system error, keeping its number so callers can tell ENOSPC from EIO.
    static func fromErrno(_ errno: Errno, _ message: String, path: String? = nil, offset: Int64? = nil) -> StrataError {
        let text: String
        switch errno {
        case .noSpace: text = "\(message): no space left on device"
        case .ioError: text = "\(message): input/output error"
        default: text = "\(message): \(errno)"
        }
        return StrataError(.io, text, path: path, offset: offset, errno: errno.rawValue)
    }
}
