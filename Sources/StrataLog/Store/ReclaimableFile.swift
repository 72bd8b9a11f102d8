/// A segment, blob or index file of a store, which a compaction may retire while
/// readers and snapshots still hold it. Retired, it hands a writable handle of its
/// file to the store's ``FileReclaimer`` when the last of them lets go: the reclaimer
/// frees its space in pieces (why: see there). Every call passes through.
final class ReclaimableFile: StorageFile {
    private let base: any StorageFile
    /// Set by ``retire(to:cuttingThrough:)``.
    private let retirement = Locked<(reclaimer: FileReclaimer, handle: any StorageFile)?>(nil)

    init(_ base: any StorageFile) {
        self.base = base
    }

    deinit {
        if let retirement = retirement.withLock({ $0 }) { retirement.reclaimer.adopt(retirement.handle) }
    }

    /// Marks the file retired once its name is removed. `handle` was opened for writing
    /// before that: a sealed file is open read-only here, and an unlinked file cannot
    /// be opened again.
    func retire(to reclaimer: FileReclaimer, cuttingThrough handle: any StorageFile) {
        retirement.withLock { $0 = (reclaimer, handle) }
    }

    var path: String { base.path }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try base.read(into: buffer, at: offset)
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        try base.write(bytes, at: offset)
    }

    func size() throws -> Int64 { try base.size() }

    func truncate(to size: Int64) throws { try base.truncate(to: size) }

    func sync() throws { try base.sync() }

    func writeBack(_ range: Range<Int64>) throws { try base.writeBack(range) }

    /// A file closed by its owner is done with: it is not handed on.
    func close() throws {
        let retired = retirement.withLock { value in
            defer { value = nil }
            return value
        }
        try? retired?.handle.close()
        try base.close()
    }
}
