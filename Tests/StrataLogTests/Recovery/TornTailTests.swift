import Testing
import Logging
import StrataTestSupport
@testable import StrataLog

/// Power loss mid-write leaves a prefix of the active segment's bytes. Whatever the
/// cut, reopening must keep exactly the whole transactions before it.
@Suite struct TornTailTests {
    /// Writes `transactions` transactions into a fresh store and returns, for each, the
    /// active segment's size after it committed, and the expected key → value state.
    static func makeStore(at path: String, transactions: Int) throws -> (boundaries: [Int], states: [[UInt64: [UInt8]]]) {
        var options = LogStoreOptions()
        options.blockSize = 256 // several frames per transaction
        let store = try LogStore.open(at: path, options: options, logger: .quiet)
        var boundaries = [try FileBytes.size(path + "/segments/000001.seg")]
        var state: [UInt64: [UInt8]] = [:]
        var states = [state]
        for t in 0..<transactions {
            var batch = WriteBatch()
            for k in UInt64(0)..<6 {
                let key = (UInt64(t) * 3 + k) % 10
                if (k + UInt64(t)) % 5 == 4 {
                    batch.delete(RecordKey(key))
                    state[key] = nil
                } else {
                    let value = LogFixtures.value(key, version: t, size: 30 + Int(k) * 25)
                    batch.put(RecordKey(key), value: value)
                    state[key] = value
                }
            }
            try store.commit(batch)
            boundaries.append(try FileBytes.size(path + "/segments/000001.seg"))
            states.append(state)
        }
        try store.close()
        return (boundaries, states)
    }

    static func contents(of path: String) throws -> [UInt64: [UInt8]] {
        let store = try LogStore.open(at: path, logger: .quiet)
        defer { try? store.close() }
        var result: [UInt64: [UInt8]] = [:]
        for key in try store.keys() { result[key.rawValue] = try store.get(key)?.value }
        return result
    }

    @Test func cutAtEveryByteKeepsExactlyTheWholeTransactions() throws {
        let dir = try TemporaryDirectory("torn")
        defer { dir.remove() }
        let original = dir.appending("original")
        let (boundaries, states) = try Self.makeStore(at: original, transactions: 3)
        let segment = "/segments/000001.seg"
        let bytes = try FileBytes.read(original + segment)
        #expect(bytes.count == boundaries.last)
        let copy = dir.appending("copy")
        try FileBytes.copyDirectory(original, to: copy)
        // Open changes nothing but the active segment here (no sealed segments, the
        // blob file is empty), so rewriting that one file per cut is a fresh crash.
        for cut in stride(from: boundaries[0], through: bytes.count, by: 1) {
            try FileBytes.write(Array(bytes.prefix(cut)), to: copy + segment)
            let whole = boundaries.lastIndex(where: { $0 <= cut }) ?? 0
            let found = try Self.contents(of: copy)
            #expect(found == states[whole], "cut at \(cut): expected the state after \(whole) transactions")
            // Recovery truncated the tail, so the store takes new commits cleanly.
            #expect(try FileBytes.size(copy + segment) == boundaries[whole])
        }
    }

    @Test(arguments: [[UInt8](repeating: 0, count: 100), LogFixtures.noise(333, seed: 3), [0x10, 0, 0, 0, 1, 2, 3, 4, 1, 0, 0, 0]])
    func garbageAfterTheLastCommitIsCut(garbage: [UInt8]) throws {
        let dir = try TemporaryDirectory("garbage")
        defer { dir.remove() }
        let (boundaries, states) = try Self.makeStore(at: dir.path, transactions: 3)
        try FileBytes.append(garbage, to: dir.path + "/segments/000001.seg")
        #expect(try Self.contents(of: dir.path) == states.last)
        #expect(try FileBytes.size(dir.path + "/segments/000001.seg") == boundaries.last)
        // And the store goes on: a new commit after recovery survives another reopen.
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        var batch = WriteBatch()
        batch.put(RecordKey(99), value: [9, 9])
        try store.commit(batch)
        try store.close()
        #expect(try Self.contents(of: dir.path)[99] == [9, 9])
    }

    @Test func tornBlobTailIsCutAndCommittedBlobsSurvive() throws {
        let dir = try TemporaryDirectory("tornblob")
        defer { dir.remove() }
        let blobPath = dir.path + "/blobs/000001.blob"
        let kept = LogFixtures.noise(5000, seed: 1)
        let ref: BlobRef
        do {
            let store = try LogStore.open(at: dir.path, logger: .quiet)
            ref = try store.writeBlob(kept)
            var batch = WriteBatch()
            batch.put(RecordKey(1), value: [], blobs: [ref])
            try store.commit(batch)
            _ = try store.writeBlob(LogFixtures.noise(5000, seed: 2)) // never committed
            try store.close()
        }
        let full = try FileBytes.size(blobPath)
        try FileBytes.truncate(blobPath, to: full - 1234)
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        #expect(try store.readBlob(ref) == kept)
        #expect(try FileBytes.size(blobPath) == Int(ref.offset + ref.length) + Format.blobEntryHeaderSize)
        let next = try store.writeBlob([1, 2, 3])
        #expect(try store.readBlob(next) == [1, 2, 3])
        try store.close()
    }

    /// Open finds a blob file's valid end through a window of headers
    /// (`BlobReader.headerWindow`), not a read per header: cut anywhere among small and
    /// large entries (headers straddling a window's edge, entries larger than a
    /// window, a tail cut inside a header or its data), it finds what a walk header
    /// by header finds, and reads the file in about size / window reads.
    @Test func blobValidEndThroughAWindowMatchesAHeaderByHeaderWalk() throws {
        let fileSystem = InMemoryFileSystem()
        let store = try LogStore.open(at: "/window", fileSystem: fileSystem, logger: .quiet)
        var random = SeededRandom(seed: 77)
        for i in 0..<400 {
            let length = i % 97 == 0 ? random.int(in: 20_000...40_000) : random.int(in: 1...300)
            _ = try store.writeBlob(LogFixtures.noise(length, seed: UInt64(i)))
        }
        try store.close()
        let whole = try fileSystem.open("/window/blobs/000001.blob", mode: .readOnly)
        let bytes = try whole.readExactly(Int(try whole.size()), at: 0)
        // The reference walk: one read per header, over the first `count` bytes.
        func headerByHeader(_ file: [UInt8], count: Int) -> Int64 {
            var position = Format.blobHeaderSize
            while position + Format.blobEntryHeaderSize <= count {
                guard let header = BlobEntryHeader.decode(file[position..<position + Format.blobEntryHeaderSize]),
                      header.storedLength <= UInt64(count) else { break }
                let next = position + Format.blobEntryHeaderSize + Int(header.storedLength)
                guard next <= count else { break }
                position = next
            }
            return Int64(min(position, count))
        }
        var cuts = Set((0..<150).map { _ in random.int(in: 0...bytes.count) })
        for edge in stride(from: BlobReader.headerWindow, to: bytes.count, by: BlobReader.headerWindow) {
            for delta in [-33, -32, -31, -17, -1, 0, 1, 17, 31, 32] where edge + delta <= bytes.count { cuts.insert(edge + delta) }
        }
        // One copy of the file, cut shorter and shorter.
        let file = try fileSystem.open("/window/cut", mode: .create)
        try file.write(bytes, at: 0)
        #expect(try BlobReader.validEnd(of: file) == headerByHeader(bytes, count: bytes.count))
        for cut in cuts.sorted(by: >) {
            try file.truncate(to: Int64(cut))
            #expect(try BlobReader.validEnd(of: file) == headerByHeader(bytes, count: cut), "cut at \(cut)")
        }
        // Damage inside the file ends the walk where the header-by-header walk ends it.
        var damaged = bytes
        damaged[bytes.count / 2] ^= 0xFF
        let damagedFile = try fileSystem.open("/window/damaged", mode: .create)
        try damagedFile.write(damaged, at: 0)
        #expect(try BlobReader.validEnd(of: damagedFile) == headerByHeader(damaged, count: damaged.count))
    }

    /// A file of photo-sized entries is walked by their headers alone: past an entry of
    /// half a window or more, the next header is read without a window of the data
    /// behind it (a window per large entry would read much of the file at every open).
    @Test func blobValidEndReadsOnlyHeadersPastLargeEntries() throws {
        let fileSystem = InMemoryFileSystem()
        let store = try LogStore.open(at: "/large", fileSystem: fileSystem, logger: .quiet)
        for i in 0..<40 { _ = try store.writeBlob(LogFixtures.noise(i % 8 == 7 ? 100 : 64 << 10, seed: UInt64(i))) }
        try store.close()
        let bytesRead = Locked(0)
        let file = CountingFile(try fileSystem.open("/large/blobs/000001.blob", mode: .readOnly), bytesRead)
        let size = try file.size()
        #expect(try BlobReader.validEnd(of: file) == size)
        // 35 large entries: a header each; 5 small ones among them: at most a window each.
        let read = bytesRead.withLock { $0 }
        #expect(read <= 35 * Format.blobEntryHeaderSize + 6 * BlobReader.headerWindow, "read \(read) of \(size) bytes")
    }
}
