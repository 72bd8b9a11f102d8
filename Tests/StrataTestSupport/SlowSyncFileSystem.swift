import Foundation
import StrataLog

/// A file system whose fsyncs take `delay`, as a disk's do, over another one (an
/// in-memory one, so a test can still cut the power): group commit only shows when
/// commits arrive while an fsync runs.
public final class SlowSyncFileSystem: FileSystemWrapper {
    public let base: any FileSystem
    public let delay: Duration
    private let syncs = Locked(0)

    public init(wrapping base: any FileSystem, delay: Duration) {
        self.base = base
        self.delay = delay
    }

    /// fsyncs of files made so far.
    public var fileSyncs: Int { syncs.withLock { $0 } }

    public func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
        SlowSyncFile(base: try base.open(path, mode: mode), delay: delay, syncs: syncs)
    }
}

private final class SlowSyncFile: StorageFileWrapper {
    let base: any StorageFile
    let delay: Duration
    let syncs: Locked<Int>

    init(base: any StorageFile, delay: Duration, syncs: Locked<Int>) {
        self.base = base
        self.delay = delay
        self.syncs = syncs
    }

    func sync() throws {
        // The bytes written before the fsync began are the ones it makes durable:
        // those written while it takes its time are not.
        try base.sync()
        let (seconds, attoseconds) = delay.components
        usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        syncs.withLock { $0 += 1 }
    }
}
