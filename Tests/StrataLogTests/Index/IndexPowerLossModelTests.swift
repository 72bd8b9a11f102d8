import Testing
import StrataTestSupport
@testable import StrataLog

/// The on-disk index (FORMAT.md §7) against a plain dictionary across power losses:
/// the `StoreIndexModelTests` workload (puts, overwrites, deletes, terms, seals,
/// compactions) on an in-memory file system, where from time to time an I/O failure is
/// injected — into index files being written (`index/`), segments, the manifest, or any
/// file — the workload goes on until something throws, and then the power goes (with
/// or without a torn tail). The reopened store must hold the state after the last
/// acknowledged transaction or after the one in flight, and every index read
/// (keys, ranges, pages, counts, terms) must agree with that state's model. The
/// workload then continues on the reopened store.
@Suite struct IndexPowerLossModelTests {
    typealias Model = [RecordKey: StoreIndexModelTests.Version]
    static let root = "/store"

    static func options() -> LogStoreOptions {
        var options = StoreIndexModelTests.options()
        // Every commit durable: what a power loss keeps is exactly what was acknowledged.
        options.durability = .everyCommit
        options.compactionBatchBytes = 4 << 10
        return options
    }

    /// One random transaction applied to `model` (the returned model is its outcome).
    static func transaction(_ model: Model, _ random: inout SeededRandom, version: inout Int) -> (WriteBatch, Model) {
        var batch = WriteBatch()
        var staged = model
        for _ in 0..<random.int(in: 1...10) {
            let key = StoreIndexModelTests.key(&random)
            if random.chance(20) {
                batch.delete(key)
                staged[key] = nil
            } else {
                version += 1
                let value = LogFixtures.value(key.rawValue, version: version, size: random.int(in: 10...90))
                let terms = StoreIndexModelTests.terms(for: key, &random)
                batch.put(key, value: value, terms: terms)
                staged[key] = StoreIndexModelTests.Version(value: value, terms: terms)
            }
        }
        return (batch, staged)
    }

    /// A failure somewhere a seal, a compaction or a commit writes.
    static func fault(_ random: inout SeededRandom) -> Fault {
        let operations: [Fault.Operation] = [.write, .sync, .rename, .syncDirectory, .create]
        let paths: [Fault.PathPattern] = ["index/", ".idx.tmp", "segments/", "MANIFEST", .any]
        return .fail(operations[random.int(in: 0...(operations.count - 1))],
                     matching: paths[random.int(in: 0...(paths.count - 1))],
                     on: .nth(random.int(in: 1...4)))
    }

    /// The live keys and values of `store`.
    static func contents(_ store: LogStore) throws -> [RecordKey: [UInt8]] {
        var result: [RecordKey: [UInt8]] = [:]
        for key in try store.keys() { result[key] = try store.get(key)?.value }
        return result
    }

    @Test(arguments: [UInt64(11), 12, 13])
    func indexAgreesWithADictionaryAcrossPowerLosses(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let memory = InMemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        var store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
        var model: Model = [:]
        var version = 0
        var losses = 0, failures = 0
        for step in 0..<45 {
            let (batch, staged) = Self.transaction(model, &random, version: &version)
            try store.commit(batch)
            model = staged
            switch random.int(in: 0...9) {
            case 0: try store.sealActiveSegment()
            case 1: try store.compact(force: true)
            default: break
            }
            guard random.chance(25) else { continue }

            // A failure, then the power goes.
            let id = fs.inject(Self.fault(&random))
            var inFlight: Model?
            do {
                for _ in 0..<6 {
                    let (next, nextModel) = Self.transaction(model, &random, version: &version)
                    inFlight = nextModel
                    try store.commit(next)
                    model = nextModel
                    inFlight = nil
                    switch random.int(in: 0...2) {
                    case 0: try store.sealActiveSegment()
                    case 1: try store.compact(force: true)
                    default: break
                    }
                }
            } catch {
                failures += 1
            }
            if fs.timesFired(id) > 0 { losses += 1 }
            fs.clearFaults()
            memory.crash(keepingUnsyncedBytes: random.chance(50) ? 0 : random.int(in: 1...600))
            try? store.close()
            store = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: fs, logger: .quiet)
            let found = try Self.contents(store)
            if let inFlight, found == inFlight.mapValues(\.value) {
                model = inFlight
            } else {
                #expect(found == model.mapValues(\.value), "seed \(seed) step \(step): the reopened store is neither the acknowledged state nor the one in flight")
            }
            try StoreIndexModelTests().check(store, model, &random, step: "seed \(seed) step \(step) after power loss")
            #expect(try store.verify().isSound, "seed \(seed) step \(step)")
        }
        // The workload must really have lost power mid-write, not only after clean steps.
        #expect(losses > 2, "seed \(seed): only \(losses) injected failures fired")
        #expect(failures > 0, "seed \(seed): no injected failure made an operation throw")
        try store.close()
        memory.crash()
        let reopened = try LogStore.open(at: Self.root, options: Self.options(), fileSystem: memory, logger: .quiet)
        try StoreIndexModelTests().check(reopened, model, &random, step: "seed \(seed) final")
        try reopened.close()
    }
}
