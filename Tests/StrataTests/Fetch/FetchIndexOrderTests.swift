import Foundation
import StrataLog
import Testing
import StrataTestSupport
@testable import Strata

/// A fetch sorted by an indexed attribute with a limit walks the index in sort order
/// and stops once its top rows are settled. It must answer exactly what interpreted
/// fetches (every object judged, then sorted) answer — ties on the first key broken by
/// the other keys and then by insertion order, other conditions judged, nulls of an
/// optional attribute last when descending, objects the context holds loaded judged
/// with the values it last read — and read far fewer records than the entity holds.
@Suite("Fetch: sorted by an indexed attribute, walked in index order")
struct FetchIndexOrderTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Row") {
                Attribute("n", .int64, indexed: true)
                Attribute("s", .string, indexed: true)
                Attribute("o", .int32, optional: true, indexed: true)
                Attribute("k", .int64, default: .int(0))
                Attribute("label", .string, optional: true)
            }
            Entity("Base") {
                Attribute("v", .int64, indexed: true)
            }
            Entity("Derived", parent: "Base") {
                Attribute("w", .int64, optional: true)
            }
        }
    }

    /// Strings whose canonical forms tie ("é" both ways), differ only in case, are
    /// empty, or share their first 1,024 bytes (their terms are equal).
    static let long = String(repeating: "x", count: 1_030)
    static let strings = ["", "a", "A", "ab", "b", "é", "e\u{301}", "ö", "zz", long + "a", long + "b", long]

    static func fill(_ object: ManagedObject, _ r: inout SeededRandom) throws {
        try object.setValue(.int(Int64(r.int(in: -20...20))), forKey: "n")
        try object.setValue(.string(strings[r.int(in: 0...strings.count - 1)]), forKey: "s")
        try object.setValue(r.chance(30) ? .null : .int(Int64(r.int(in: -5...5))), forKey: "o")
        try object.setValue(.int(Int64(r.int(in: 0...9))), forKey: "k")
        try object.setValue(r.chance(40) ? .null : .string(["p", "q", "r"][r.int(in: 0...2)]), forKey: "label")
    }

    /// A store of rows saved over several commits in small segments (several index
    /// files and the overlay), some updated or deleted since (stale terms).
    static func store(_ kind: FetchFixtures.Kind, in dir: TemporaryDirectory, rows: Int, _ r: inout SeededRandom) throws -> ObjectStore {
        var options = StoreOptions()
        options.log.segmentSizeLimit = 8_192
        let store = kind == .inMemory
            ? try StoreUnderTest.inMemory(model: try model(), options: options)
            : try StoreUnderTest.open(at: dir.appending("O.strata"), model: try model(), options: options)
        var made = 0
        while made < rows {
            let context = store.newContext()
            for _ in 0..<min(100, rows - made) { try fill(try context.insert("Row"), &r) }
            try context.save()
            made += 100
        }
        let context = store.newContext()
        for id in try context.fetchObjectIDs(FetchRequest(entityName: "Row")) {
            if r.chance(10) { try context.delete(try context.object(with: id)) } else if r.chance(15) { try fill(try context.object(with: id), &r) }
        }
        try context.save()
        return store
    }

    /// Each result's id, in order, or the error.
    static func outcome(_ request: FetchRequest, in context: ObjectContext) -> [String] {
        do {
            return try context.fetch(request).map { "\($0.objectID)" }
        } catch {
            return ["error: \(error)"]
        }
    }

    static func randomRequest(_ r: inout SeededRandom) throws -> FetchRequest {
        var request = FetchRequest(entityName: "Row")
        let first = ["n", "s", "o"][r.int(in: 0...2)]
        request.sortKeys = [SortKey(first, ascending: r.chance(50))]
        for _ in 0..<r.int(in: 0...2) { request.sortKeys.append(SortKey(["k", "label", "n", "s"][r.int(in: 0...3)], ascending: r.chance(50))) }
        request.fetchLimit = [0, 1, 3, 10, 40][r.int(in: 0...4)]
        if r.chance(30) { request.fetchOffset = r.int(in: 0...5) }
        switch r.int(in: 0...4) {
        case 0: request.predicate = try Strata.Predicate(format: "k >= %@", Int64(r.int(in: 0...9)))
        case 1: request.predicate = try Strata.Predicate(format: "k == %@", Int64(r.int(in: 0...9)))
        case 2: request.predicate = try Strata.Predicate(format: "label == nil OR k == 3")
        case 3: request.predicate = try Strata.Predicate(format: "o == nil AND k > 6") // few or no values: nulls follow
        default: break
        }
        return request
    }

    @Test("random requests agree with interpreted fetches", arguments: FetchFixtures.Kind.underTest)
    func randomRequests(kind: FetchFixtures.Kind) throws {
        let dir = try TemporaryDirectory("index-order")
        defer { dir.remove() }
        var r = SeededRandom(seed: 57)
        let store = try Self.store(kind, in: dir, rows: 700, &r)
        defer { try? store.close() }
        let ids = try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Row"))
        var walked = 0, heldRounds = 0
        for round in 0..<400 {
            // Objects a context holds stay registered while something keeps them.
            var kept: [ManagedObject] = []
            let request = try Self.randomRequest(&r)
            let compiled = store.newContext()
            let interpreted = store.newContext()
            interpreted.interpretsFetches = true
            if round % 3 == 1 {
                // Both contexts hold the same objects loaded; another context then
                // changes some of them: the held values are no longer the stored ones.
                var pick = SeededRandom(seed: UInt64(round), stream: 5)
                let held = (0..<30).map { _ in ids[pick.int(in: 0...ids.count - 1)] }
                for context in [compiled, interpreted] {
                    for id in held {
                        guard let object = try? context.object(with: id), (try? object.value(forKey: "n")) != nil else { continue }
                        kept.append(object)
                    }
                }
                let writer = store.newContext()
                for id in held.prefix(12) { try? Self.fill(try writer.object(with: id), &pick) }
                try writer.save()
            } else if round % 3 == 2 {
                // Unsaved changes in both: the walk is not taken, the answer the same.
                let pick = SeededRandom(seed: UInt64(round), stream: 6)
                for context in [compiled, interpreted] {
                    var same = pick
                    for _ in 0..<3 {
                        guard let object = try? context.object(with: ids[same.int(in: 0...ids.count - 1)]) else { continue }
                        try? Self.fill(object, &same)
                    }
                }
            }
            if case .indexOrder = try request.explain(in: compiled).access {
                walked += 1
                if !kept.isEmpty { heldRounds += 1 }
            }
            let expected = Self.outcome(request, in: interpreted)
            #expect(Self.outcome(request, in: compiled) == expected,
                    "round \(round): \(request.predicate?.description ?? "nil") by \(request.sortKeys.map { "\($0.keyPath)\($0.ascending ? "" : " desc")" }) limit \(request.fetchLimit ?? -1) offset \(request.fetchOffset)")
        }
        #expect(walked > 120, "only \(walked) of 400 requests walked an index in order")
        #expect(heldRounds > 40, "only \(heldRounds) walks met objects the context held")
    }

    @Test("the plan says when an index is walked in order, and when not", arguments: FetchFixtures.Kind.underTest)
    func plans(kind: FetchFixtures.Kind) throws {
        let dir = try TemporaryDirectory("index-order-plan")
        defer { dir.remove() }
        var r = SeededRandom(seed: 3)
        let store = try Self.store(kind, in: dir, rows: 50, &r)
        defer { try? store.close() }
        let context = store.newContext()
        func access(_ sort: [SortKey], limit: Int? = 10, predicate: String? = nil, entity: String = "Row") throws -> FetchPlan.Access {
            var request = FetchRequest(entityName: entity, predicate: try predicate.map { try Strata.Predicate(format: $0) }, sortKeys: sort)
            request.fetchLimit = limit
            return try request.explain(in: context).access
        }
        #expect(try access([.descending("n")]) == .indexOrder(attribute: "n", descending: true))
        #expect(try access([.ascending("s"), .ascending("k")]) == .indexOrder(attribute: "s", descending: false))
        #expect(try access([.ascending("n")], predicate: "k == 3") == .indexOrder(attribute: "n", descending: false))
        let plan = try FetchRequest(entityName: "Row", sortKeys: [.descending("n")]).with(limit: 5).explain(in: context)
        #expect(plan.description.contains("USING INDEX ON n IN DESCENDING ORDER"))
        #expect(plan.order == .top(count: 5))
        // Not walked: an optional attribute ascending (its nulls sort first), no limit,
        // a limit past the walk's maximum, folded strings, an unindexed first key,
        // another index serving the predicate, an entity with sub-entities.
        #expect(try access([.ascending("o")]) == .scan)
        #expect(try access([.descending("o")]) == .indexOrder(attribute: "o", descending: true))
        #expect(try access([.descending("n")], limit: nil) == .scan)
        #expect(try access([.descending("n")], limit: IndexOrderWalk.maximumRows + 1) == .scan)
        #expect(try access([.ascending("s", options: .caseInsensitive)]) == .scan)
        #expect(try access([.ascending("k"), .ascending("n")]) == .scan)
        guard case .index = try access([.ascending("n")], predicate: "s == 'a'") else { Issue.record("another index serving the predicate was not used"); return }
        #expect(try access([.ascending("v")], entity: "Base") == .scan)
        #expect(try access([.ascending("v")], entity: "Derived") == .indexOrder(attribute: "v", descending: false))
        // Unsaved changes of the entity: judged the usual way.
        try Self.fill(try context.insert("Row"), &r)
        #expect(try access([.descending("n")]) == .scan)
    }

    @Test("the top rows of many read a few records")
    func readsFewRecords() throws {
        let store = try StoreUnderTest.inMemory(model: try Self.model())
        defer { try? store.close() }
        var values: [[String: Value]] = []
        for i in 0..<5_000 { values.append(["n": .int(Int64((i * 7919) % 5_000)), "s": .string("row \(i)"), "k": .int(Int64(i % 10))]) }
        try store.batchInsert(entityName: "Row", objects: values)
        var request = FetchRequest(entityName: "Row", sortKeys: [.descending("n")])
        request.fetchLimit = 5
        store.records.resetStatistics()
        let top = try store.newContext().fetch(request).map { try $0.int("n") ?? -1 }
        #expect(top == [4_999, 4_998, 4_997, 4_996, 4_995])
        #expect(store.records.statistics.recordsDecoded < 200, "\(store.records.statistics.recordsDecoded) records read for a top 5")
        // With another condition: read until five match, not the whole entity.
        request.predicate = try Strata.Predicate(format: "k == 3")
        store.records.resetStatistics()
        let matching = try store.newContext().fetch(request)
        #expect(matching.count == 5)
        #expect(try matching.allSatisfy { try $0.int("k") == 3 })
        #expect(store.records.statistics.recordsDecoded < 500, "\(store.records.statistics.recordsDecoded) records read for a top 5 of a tenth")
    }
}

private extension FetchRequest {
    func with(limit: Int) -> FetchRequest {
        var copy = self
        copy.fetchLimit = limit
        return copy
    }
}
