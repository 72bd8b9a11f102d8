import Foundation
import StrataLog
import Testing
import StrataTestSupport
@testable import Strata

/// A sorted scan of a large entity is judged on two threads, the entity's keys cut in
/// half, and so are the many candidates of an index (`StoreOptions.parallelScanMinimum`
/// and `parallelCandidateMinimum`, here 1 and 2 so that nearly every fetch qualifies). It
/// must give what interpreted fetches (one thread, managed objects) give: the same
/// results in the same order — ties in the sort keys broken by key order across the
/// cut — the same counts and the same errors, external binaries judged as objects.
@Suite("Fetch: scans cut in two agree with interpreted fetches")
struct FetchParallelScanTests {
    static func store(_ kind: FetchFixtures.Kind, in dir: TemporaryDirectory) throws -> ObjectStore {
        try FetchDifferentialTests.store(kind, in: dir) { options in
            options.parallelScanMinimum = 1
            options.parallelCandidateMinimum = 2
        }
    }

    @Test("random sorted fetches, on two threads and on objects", arguments: FetchFixtures.Kind.underTest)
    func randomSortedFetches(kind: FetchFixtures.Kind) throws {
        let dir = try TemporaryDirectory("parallel-scan")
        defer { dir.remove() }
        let store = try Self.store(kind, in: dir)
        defer { try? store.close() }
        var r = SeededRandom(seed: 23)
        try FetchDifferentialTests.saveItems(300, in: store, &r)
        // Some objects gone, so the halves are not equal and keys have gaps.
        let doomed = store.newContext()
        for id in try doomed.fetchObjectIDs(FetchRequest(entityName: "Item")) where r.chance(15) { try doomed.delete(try doomed.object(with: id)) }
        try doomed.save()

        var parallelRuns = 0, parallelIndexRuns = 0
        for round in 0..<300 {
            var request = FetchDifferentialTests.randomRequest(&r)
            if request.sortKeys.isEmpty { request.sortKeys = [SortKey(["i", "s", "b", "d"][r.int(in: 0...3)], ascending: r.chance(50))] }
            let compiled = store.newContext()
            let interpreted = store.newContext()
            interpreted.interpretsFetches = true
            if let plan = try? request.explain(in: compiled), plan.threads == 2 {
                parallelRuns += 1
                if case .index = plan.access { parallelIndexRuns += 1 }
                #expect(plan.description.contains("ON 2 THREADS"))
            }
            let expected = FetchDifferentialTests.outcome(request, in: interpreted)
            let found = FetchDifferentialTests.outcome(request, in: compiled)
            #expect(found == expected, "round \(round): \(request.predicate?.description ?? "nil") sorted by \(request.sortKeys.map(\.keyPath)) limit \(String(describing: request.fetchLimit)) offset \(request.fetchOffset)")
            if case .results = expected {
                #expect((try? store.newContext().count(for: request)) == (try? interpreted.count(for: request)), "round \(round)")
            }
        }
        // Requests an index serves: an indexed comparison, alone or with another condition.
        for round in 0..<150 {
            var request = FetchRequest(entityName: r.chance(80) ? "Item" : "Special")
            let indexed: Strata.Predicate = switch r.int(in: 0...2) {
            case 0: try Strata.Predicate(format: "i == %@", Int64(r.int(in: -3...4)))
            case 1: try Strata.Predicate(format: "i BETWEEN {%@, %@}", Int64(r.int(in: -3...0)), Int64(r.int(in: 0...4)))
            default: try Strata.Predicate(format: "s BEGINSWITH %@", ["a", "A", "", "e"][r.int(in: 0...3)])
            }
            request.predicate = r.chance(50) ? .and([indexed, FetchDifferentialTests.randomPredicate(&r)]) : indexed
            request.sortKeys = (0..<r.int(in: 1...2)).map { _ in SortKey(["n", "t", "d", "b"][r.int(in: 0...3)], ascending: r.chance(50)) }
            if r.chance(60) { request.fetchLimit = [1, 3, 10][r.int(in: 0...2)] }
            if r.chance(25) { request.fetchOffset = r.int(in: 0...3) }
            // Every other round, contexts with the same unsaved changes and loaded
            // objects: those candidates are judged as objects beside the two halves.
            let ids = try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Item"))
            let changes = round % 2 == 1
            let compiled = changes ? try FetchDifferentialTests.context(store, ids: ids, seed: UInt64(round), interpreted: false) : store.newContext()
            let interpreted = changes ? try FetchDifferentialTests.context(store, ids: ids, seed: UInt64(round), interpreted: true) : store.newContext()
            interpreted.interpretsFetches = true
            if let plan = try? request.explain(in: compiled), plan.threads == 2, case .index = plan.access {
                parallelIndexRuns += 1
                #expect(plan.description.contains("CANDIDATES ON 2 THREADS"))
            }
            #expect(FetchDifferentialTests.outcome(request, in: compiled) == FetchDifferentialTests.outcome(request, in: interpreted),
                    "indexed round \(round): \(request.predicate?.description ?? "nil") sorted by \(request.sortKeys.map(\.keyPath))")
        }
        #expect(parallelRuns > 60, "only \(parallelRuns) of 300 requests were judged on two threads")
        #expect(parallelIndexRuns > 60, "only \(parallelIndexRuns) requests judged an index's candidates on two threads")
    }

    /// A read that fails in whichever thread claimed its chunk fails the whole fetch
    /// with that read's error — never a partial answer — and the other thread stops
    /// claiming; once reads work again, the same fetch answers as an interpreted one.
    @Test("a read failing in either thread's chunk fails the fetch, and nothing else")
    func aFailingReadFailsTheFetch() throws {
        let memory = InMemoryFileSystem()
        let faults = FaultInjectingFileSystem(wrapping: memory)
        var options = StoreOptions()
        options.fileSystem = faults
        options.logger = .quiet
        options.parallelScanMinimum = 1
        // Small segments and no room to cache them: every chunk reads its own files.
        options.log.segmentSizeLimit = 4096
        options.log.blockCacheBytes = 0
        let path = "/parallel-faults.strata"
        var r = SeededRandom(seed: 41)
        do {
            let store = try StoreUnderTest.open(at: path, model: try FetchDifferentialTests.model(), options: options)
            try FetchDifferentialTests.saveItems(400, in: store, &r)
            try store.close()
        }
        let store = try StoreUnderTest.open(at: path, model: try FetchDifferentialTests.model(), options: options)
        defer { try? store.close() }
        var request = FetchRequest(entityName: "Item", predicate: try Strata.Predicate(format: "n >= 10"))
        request.sortKeys = [SortKey("t", ascending: false), SortKey("n")]
        request.fetchLimit = 7
        #expect(try request.explain(in: store.newContext()).threads == 2)
        let interpreted = store.newContext()
        interpreted.interpretsFetches = true
        let expected = try interpreted.fetch(request).map(\.objectID)
        #expect(expected.count == 7)

        var failures = 0
        for nth in 1...12 {
            let fault = faults.inject(.fail(.read, matching: .contains("segments/"), on: .nth(nth)))
            do {
                _ = try store.newContext().fetch(request)
                Issue.record("read \(nth) of the segments failed, yet the fetch answered")
            } catch let error as StrataError {
                #expect(error.context["injectedFault"] != nil, "read \(nth): \(error)")
                failures += 1
            }
            #expect(faults.timesFired(fault) == 1)
            faults.clearFaults()
            #expect(try store.newContext().fetch(request).map(\.objectID) == expected, "after read \(nth) failed")
        }
        #expect(failures == 12)
    }

    @Test("a context holding objects, unsaved changes or a small entity scan on one thread")
    func whenItStaysOnOneThread() throws {
        let dir = try TemporaryDirectory("parallel-scan-plan")
        defer { dir.remove() }
        let store = try Self.store(.inMemory, in: dir)
        defer { try? store.close() }
        let setup = store.newContext()
        var r = SeededRandom(seed: 5)
        for n in 0..<40 { try FetchDifferentialTests.fill(try setup.insert("Item"), n: n, &r) }
        try setup.save()
        var request = FetchRequest(entityName: "Item", predicate: try Strata.Predicate(format: "n >= 3"))
        request.sortKeys = [SortKey("t", ascending: false)]
        request.fetchLimit = 5
        #expect(try request.explain(in: store.newContext()).threads == 2)

        // Objects the context holds are judged as it holds them, not on records ahead of the walk.
        let holding = store.newContext()
        let held = try holding.fetch(FetchRequest(entityName: "Item", predicate: try Strata.Predicate(format: "n == 1")))
        #expect(held.count == 1)
        let plan = try request.explain(in: holding)
        #expect(plan.threads == 1)
        withExtendedLifetime(held) {}

        let changing = store.newContext()
        try FetchDifferentialTests.fill(try changing.insert("Item"), n: 99, &r)
        #expect(try request.explain(in: changing).threads == 1)

        var unsorted = request
        unsorted.sortKeys = []
        #expect(try unsorted.explain(in: store.newContext()).threads == 1)

        // The default minimum: a 40-object entity is scanned on one thread.
        let small = try StoreUnderTest.inMemory(model: try FetchDifferentialTests.model())
        defer { try? small.close() }
        let fill = small.newContext()
        for n in 0..<40 { try FetchDifferentialTests.fill(try fill.insert("Item"), n: n, &r) }
        try fill.save()
        #expect(try request.explain(in: small.newContext()).threads == 1)
    }
}
