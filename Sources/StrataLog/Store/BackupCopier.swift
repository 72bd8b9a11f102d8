import SystemPackage

/// Puts a backup's files in place through the store's file system (FORMAT.md §1
/// names them): a hard link for an immutable file while the file system makes them, a
/// copy otherwise, each copy fsynced; and counts progress.
struct BackupCopier {
    /// One file of the backup.
    struct Item {
        var source: String
        var target: String
        /// Bytes copied from the start of the file: what the active segment and blob
        /// file held when the backup began. Nil for a whole file that never changes (a
        /// sealed segment or blob file, an index or hint file), which may be linked.
        var length: Int64?
        /// Its size when planned (the whole file's, or `length`).
        var size: Int64
        /// Derived data (index and hint files): when it is gone, the copy's open
        /// rebuilds it (FORMAT.md §7.7), so the backup goes on without it.
        var optional = false
    }

    let fileSystem: any FileSystem
    let report: ((BackupProgress) -> Void)?
    private(set) var progress: BackupProgress
    private(set) var linked = 0
    /// Cleared at the first link the file system refuses for good (another file system,
    /// no hard links): the remaining files are copied without asking again.
    private var canLink = true

    /// Bytes read and written at a time.
    static let chunk = 1 << 20

    init(fileSystem: any FileSystem, bytesTotal: Int64, filesTotal: Int, report: ((BackupProgress) -> Void)?) {
        self.fileSystem = fileSystem
        self.report = report
        self.progress = BackupProgress(bytesCopied: 0, bytesTotal: bytesTotal, filesCopied: 0, filesTotal: filesTotal)
    }

    /// Links or copies one file.
    mutating func put(_ item: Item) throws {
        if item.length == nil && canLink {
            do {
                try fileSystem.link(item.source, to: item.target)
                linked += 1
                finished(bytes: item.size)
                return
            } catch let error as StrataError {
                switch error.errno {
                case Errno.improperLink.rawValue, Errno.notPermitted.rawValue, Errno.notSupported.rawValue:
                    canLink = false // another file system, or one without links: copy from now on
                case Errno.tooManyLinks.rawValue:
                    break // this file has as many names as it can take: copy it
                case Errno.noSuchFileOrDirectory.rawValue where item.optional:
                    skip(item)
                    return
                default:
                    throw error
                }
            }
        }
        try copy(item)
    }

    /// Counts a file finished (the MANIFEST, written by the caller, too).
    mutating func finished(bytes: Int64) {
        progress.filesCopied += 1
        progress.bytesCopied += bytes
        report?(progress)
    }

    private mutating func skip(_ item: Item) {
        progress.filesTotal -= 1
        progress.bytesTotal -= item.size
    }

    /// Copies `item.length` bytes, or the whole file as it is now, then fsyncs the copy.
    private mutating func copy(_ item: Item) throws {
        let input: any StorageFile
        do {
            input = try fileSystem.open(item.source, mode: .readOnly)
        } catch let error as StrataError where item.optional && error.errno == Errno.noSuchFileOrDirectory.rawValue {
            skip(item)
            return
        }
        defer { try? input.close() }
        let length = try item.length ?? input.size()
        // A derived file rewritten since it was planned (an index file rebuilt) may
        // differ in size: the total follows what is copied.
        progress.bytesTotal += length - item.size
        let output = try fileSystem.open(item.target, mode: .create)
        do {
            var buffer = [UInt8](repeating: 0, count: Int(min(Int64(Self.chunk), max(length, 1))))
            var offset: Int64 = 0
            while offset < length {
                let count = Int(min(Int64(buffer.count), length - offset))
                let got = try buffer.withUnsafeMutableBytes { try input.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<count]), at: offset) }
                guard got == count else {
                    throw StrataError(.corrupt, "the file ends at \(offset + Int64(got)) bytes, before the \(length) the backup copies", path: item.source, offset: offset + Int64(got))
                }
                try buffer.withUnsafeBytes { try output.write(UnsafeRawBufferPointer(rebasing: $0[..<count]), at: offset) }
                offset += Int64(count)
                progress.bytesCopied += Int64(count)
                if offset < length { report?(progress) }
            }
            try output.sync()
            try output.close()
        } catch {
            try? output.close()
            throw error
        }
        finished(bytes: 0)
    }
}
