/// An open file of a `FaultInjectingFileSystem`: asks its owner about each operation,
/// then passes it on to the wrapped file.
final class FaultInjectingFile: StorageFile, LinkCounting {
    private let base: any StorageFile
    private let owner: FaultInjectingFileSystem

    init(base: any StorageFile, owner: FaultInjectingFileSystem) {
        self.base = base
        self.owner = owner
    }

    var path: String { base.path }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try owner.admit(.read, path, "read failed", offset: offset)
        return try base.read(into: buffer, at: offset)
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        switch owner.decide(.write, [path], growth: Int64(bytes.count)) {
        case .proceed:
            try base.write(bytes, at: offset)
        case .fail(let errno, let fault):
            throw FaultInjectingFileSystem.injectedError(errno, "write failed", fault: fault, path: path, offset: offset)
        case .partial(let keep, let errno, let fault):
            // A full disk stores what fits and reports the rest: the partial bytes stay.
            if keep > 0 { try base.write(UnsafeRawBufferPointer(rebasing: bytes.prefix(keep)), at: offset) }
            throw FaultInjectingFileSystem.injectedError(
                errno, "write failed", fault: fault, path: path, offset: offset + Int64(keep))
        }
    }

    func size() throws -> Int64 {
        try owner.admit(.size, path, "cannot read file size")
        return try base.size()
    }

    func truncate(to size: Int64) throws {
        // Only a full disk cares how much a truncate grows the file; ask the size then only.
        let growth = owner.tracksSpace ? max(0, size - ((try? base.size()) ?? 0)) : 0
        try owner.admit(.truncate, path, "truncate failed", offset: size, growth: growth)
        try base.truncate(to: size)
    }

    func sync() throws {
        try owner.admit(.sync, path, "fsync failed")
        try base.sync()
    }

    func writeBack(_ range: Range<Int64>) throws {
        try owner.admit(.writeBack, path, "write-back failed", offset: range.lowerBound)
        try base.writeBack(range)
    }

    func linkCount() -> Int? { (base as? LinkCounting)?.linkCount() }

    func close() throws {
        let decision = owner.decide(.close, [path])
        try base.close()
        if case .fail(let errno, let fault) = decision {
            throw FaultInjectingFileSystem.injectedError(errno, "close failed", fault: fault, path: path, offset: nil)
        }
    }
}
