import Testing
import StrataTestSupport
@testable import StrataLog

/// A clean close seals the active segment when the session committed and the overlay
/// holds at least `sealAtCloseMinimumKeys` keys, so the next open reads an index file
/// instead of replaying the segment into memory. A smaller segment, a session that only
/// read, and a read-only store are left as they are. A close whose seal fails leaves a
/// store that opens with everything acknowledged.
@Suite struct SealAtCloseTests {
    static let root = "/store"

    static func options(minimum: Int? = 20) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.durability = .none
        options.sealAtCloseMinimumKeys = minimum
        return options
    }

    /// Keys `keys` in commits of 10, with a term each and a blob for every seventh.
    static func write(_ store: LogStore, keys: ClosedRange<UInt64>, version: Int = 1) throws -> [UInt64: [UInt8]] {
        var model: [UInt64: [UInt8]] = [:]
        var key = keys.lowerBound
        while key <= keys.upperBound {
            var batch = WriteBatch()
            for k in key...min(keys.upperBound, key + 9) {
                let value = LogFixtures.value(k, version: version, size: 40)
                batch.put(RecordKey(k), value: value, blobs: k % 7 == 0 ? [try store.writeBlob(value + value)] : [],
                          terms: [IndexTerm(index: 1, value: [UInt8(k % 4)])])
                model[k] = value
            }
            try store.commit(batch)
            key += 10
        }
        return model
    }

    static func segments(_ store: LogStore) -> (sealed: Int, active: Int) {
        let manifest = store.state.withLock { $0.manifest }
        return (manifest.segments.filter { $0.state == .sealed }.count, manifest.segments.filter { $0.state == .active }.count)
    }

    @Test func aSessionThatWroteEnoughKeysSealsAtCloseAndTheNextOpenReplaysNothing() throws {
        let memory = InMemoryFileSystem()
        let store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: memory, logger: .quiet)
        let model = try Self.write(store, keys: 1...25)
        #expect(store.state.withLock { $0.index.overlay.count } == 25)
        try store.close()

        let reopened = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: memory, logger: .quiet)
        #expect(reopened.state.withLock { $0.index.overlay.isEmpty })
        #expect(Self.segments(reopened) == (1, 1))
        #expect(memory.exists(Self.root + "/index/" + StorePaths.number(1) + ".idx"))
        try StoreModelCheck.expect(reopened, holds: model, residues: 4, "after the seal at close")
        #expect(try reopened.keys(for: IndexTerm(index: 1, value: [2])) == model.keys.filter { $0 % 4 == 2 }.sorted().map { RecordKey($0) })
        // It takes commits, in the new active segment.
        var after = model
        for (key, value) in try Self.write(reopened, keys: 20...30, version: 2) { after[key] = value }
        try StoreModelCheck.expect(reopened, holds: after, residues: 4, "after writing on")
        try reopened.close()
        // 11 keys: below the minimum, so that segment stayed active and was replayed.
        try Self.expectReopened(memory, sealed: 1, overlay: 11, holds: after, "after the third open")
    }

    /// Opens the store in `memory`, checks its sealed segments (beside one active),
    /// the keys its open replayed into the overlay and what it holds, and closes it.
    static func expectReopened(_ memory: InMemoryFileSystem, sealed: Int, overlay: Int, holds model: [UInt64: [UInt8]], _ context: String) throws {
        let store = try LogStore.open(at: root, options: options(), fileSystem: memory, logger: .quiet)
        #expect(segments(store) == (sealed, 1), "\(context)")
        #expect(store.state.withLock { $0.index.overlay.count } == overlay, "\(context)")
        try StoreModelCheck.expect(store, holds: model, residues: 4, context)
        try store.close()
    }

    @Test func aSmallSegmentASessionThatOnlyReadAndNilStayActive() throws {
        let memory = InMemoryFileSystem()
        // Nil: never at close, however large.
        let unsealed = try LogStore.open(at: Self.root, options: Self.options(minimum: nil), fileSystem: memory, logger: .quiet)
        let model = try Self.write(unsealed, keys: 1...40)
        try unsealed.close()
        // A session that only reads leaves the files as they are, large overlay or not.
        try Self.expectReopened(memory, sealed: 0, overlay: 40, holds: model, "read")
        // A read-only store never writes.
        var readOnly = Self.options()
        readOnly.readOnly = true
        try LogStore.open(at: Self.root, options: readOnly, fileSystem: memory, logger: .quiet).close()
        let again = try LogStore.open(at: Self.root, options: Self.options(minimum: 1_000), fileSystem: memory, logger: .quiet)
        #expect(Self.segments(again) == (0, 1))
        // Below the minimum: stays active.
        _ = try Self.write(again, keys: 41...45)
        try again.close()
        let last = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: memory, logger: .quiet)
        #expect(Self.segments(last) == (0, 1))
        #expect(last.count == 45)
        try last.close()
    }

    /// The seal at close fails at each of its writes and syncs (the seal frame, the
    /// index file, the next segment, the manifest): close reports it, and after a crash
    /// there the next open holds every key committed durably, finishing or undoing the
    /// roll as after any crash at that point.
    @Test(arguments: [Fault.Operation.write, .sync], 1...6)
    func aSealThatFailsAtCloseLosesNothing(operation: Fault.Operation, nth: Int) throws {
        let memory = InMemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        var options = Self.options()
        options.durability = .everyCommit
        let store = try LogStore.open(at: Self.root, options: options, fileSystem: fs, logger: .quiet)
        let model = try Self.write(store, keys: 1...30)
        fs.inject(.fail(operation, on: .nth(nth)))
        var failed = false
        do {
            try store.close()
        } catch {
            failed = true
            #expect(error is StrataError)
        }
        // The seal's first write (its seal frame) and first sync are the close's own.
        if nth == 1 { #expect(failed) }
        memory.crash(keepingUnsyncedBytes: 0)
        let reopened = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: memory, logger: .quiet)
        try StoreModelCheck.expect(reopened, holds: model, residues: 4, "after a close whose \(operation) \(nth) failed")
        try reopened.close()
    }
}
