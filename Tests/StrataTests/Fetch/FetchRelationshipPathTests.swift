import Foundation
import StrataLog
import Testing
import StrataTestSupport
@testable import Strata

/// Key paths through to-one relationships judged on records (`ToOneReader`) against
/// the interpreter: destinations renamed or deleted without saving, loaded, partly
/// loaded, faults, missing from the store (a `noAction` delete), chains of two hops,
/// `relationship == object` served by the relationship's index.
@Suite("Fetch: key paths through to-one relationships, compiled")
struct FetchRelationshipPathTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Owner") {
                Attribute("name", .string, optional: true)
                Attribute("rank", .int64, optional: true)
                Attribute("note", .binary, optional: true, externalStorage: true)
                Relationship("boss", to: "Owner", inverse: "staff", optional: true)
                Relationship("staff", to: "Owner", inverse: "boss", toMany: true)
                // Deleting an owner leaves its items pointing at it (Core Data's no action).
                Relationship("items", to: "Item", inverse: "owner", toMany: true, deleteRule: .noAction)
            }
            Entity("Item") {
                Attribute("n", .int64)
                Attribute("k", .int64, optional: true)
                Relationship("owner", to: "Owner", inverse: "items", optional: true)
            }
        }
    }

    static let names: [String?] = [nil, "a", "A", "ab", "b", "é", "zz"]

    /// Owners 0…7 (bosses among the first three), 200 items, a third without an owner;
    /// then owner 7 deleted and saved, its items left pointing at it.
    static func populate(_ store: ObjectStore, _ r: inout SeededRandom) throws -> [ObjectID] {
        let setup = store.newContext()
        var owners: [ManagedObject] = []
        for i in 0..<8 {
            let owner = try setup.insert("Owner")
            if let name = names[r.int(in: 0...names.count - 1)] { try owner.setValue(name, forKey: "name") }
            if r.chance(80) { try owner.setValue(.int(Int64(r.int(in: 0...4))), forKey: "rank") }
            if i >= 3, r.chance(75) { try owner.setObject(owners[r.int(in: 0...2)], forKey: "boss") }
            owners.append(owner)
        }
        for n in 0..<200 {
            let item = try setup.insert("Item")
            try item.setValue(.int(Int64(n)), forKey: "n")
            if r.chance(70) { try item.setValue(.int(Int64(r.int(in: 0...5))), forKey: "k") }
            if r.chance(67) { try item.setObject(owners[r.int(in: 0...7)], forKey: "owner") }
        }
        try setup.save()
        let ids = owners.map(\.objectID)
        let remover = store.newContext()
        try remover.delete(try remover.existingObject(with: ids[7]))
        try remover.save()
        return ids
    }

    static func randomComparison(_ r: inout SeededRandom, owners: [ObjectID]) throws -> Strata.Predicate {
        let owner = owners[r.int(in: 0...owners.count - 1)]
        let name = names[r.int(in: 1...names.count - 1)] ?? "a"
        let rank = r.int(in: -1...5)
        switch r.int(in: 0...11) {
        case 0: return try Strata.Predicate(format: "owner == %@", owner)
        case 1: return try Strata.Predicate(format: "owner != %@", owner)
        case 2: return try Strata.Predicate(format: "owner == nil")
        case 3: return try Strata.Predicate(format: "owner.name == %@", name)
        case 4: return try Strata.Predicate(format: "owner.name BEGINSWITH[c] %@", name)
        case 5: return try Strata.Predicate(format: "owner.rank > %@", rank)
        case 6: return try Strata.Predicate(format: "owner.boss.name == %@", name)
        case 7: return try Strata.Predicate(format: "owner.boss == %@", owner)
        case 8: return try Strata.Predicate(format: "owner.boss.rank <= %@", rank)
        case 9: return try Strata.Predicate(format: "owner.name == nil")
        case 10: return try Strata.Predicate(format: "k == %@", r.int(in: 0...5))
        default: return try Strata.Predicate(format: "n < %@", r.int(in: 0...200))
        }
    }

    static func randomPredicate(_ r: inout SeededRandom, owners: [ObjectID], depth: Int = 0) throws -> Strata.Predicate {
        guard depth < 2, r.chance(40) else { return try randomComparison(&r, owners: owners) }
        switch r.int(in: 0...2) {
        case 0: return .and(try (0..<r.int(in: 1...3)).map { _ in try randomPredicate(&r, owners: owners, depth: depth + 1) })
        case 1: return .or(try (0..<r.int(in: 1...3)).map { _ in try randomPredicate(&r, owners: owners, depth: depth + 1) })
        default: return .not(try randomPredicate(&r, owners: owners, depth: depth + 1))
        }
    }

    /// The same context state in both modes: an owner renamed without saving, one
    /// deleted without saving, one loaded whole, one partly loaded, one a fault, an
    /// item moved to another owner without saving.
    static func context(_ store: ObjectStore, owners: [ObjectID], seed: UInt64, interpreted: Bool) throws -> (ObjectContext, [ManagedObject]) {
        let context = store.newContext()
        context.interpretsFetches = interpreted
        var held: [ManagedObject] = []
        var r = SeededRandom(seed: seed, stream: 7)
        if r.chance(40) {
            let items = try context.fetch(FetchRequest(entityName: "Item", predicate: try Strata.Predicate(format: "n < 3")))
            for item in items { try item.setObject(try context.object(with: owners[r.int(in: 0...6)]), forKey: "owner") }
            held += items
        }
        for _ in 0..<r.int(in: 0...4) {
            let owner = try context.object(with: owners[r.int(in: 0...6)])
            held.append(owner)
            if owner.isDeleted { continue }
            switch r.int(in: 0...4) {
            case 0: try owner.setValue(names[r.int(in: 1...names.count - 1)].map(Value.string) ?? .null, forKey: "name")
            case 1: try owner.setValue(.int(Int64(r.int(in: 0...4))), forKey: "rank")
            case 2: _ = try owner.value(forKey: "name") // loaded, unchanged
            case 3: if !owner.hasChanges { try context.delete(owner) }
            default: break // a fault
            }
        }
        if r.chance(40) {
            var partial = FetchRequest(entityName: "Owner")
            partial.propertiesToFetch = ["rank"]
            held += try context.fetch(partial).prefix(2)
        }
        return (context, held)
    }

    static func outcome(_ request: FetchRequest, in context: ObjectContext) -> FetchDifferentialTests.Outcome {
        FetchDifferentialTests.outcome(request, in: context)
    }

    @Test("random predicates through relationships agree with objects", arguments: FetchFixtures.Kind.underTest)
    func randomPaths(kind: FetchFixtures.Kind) throws {
        let dir = try TemporaryDirectory("relationship-paths")
        defer { dir.remove() }
        let store = kind == .inMemory ? try StoreUnderTest.inMemory(model: try Self.model())
                                      : try StoreUnderTest.open(at: dir.appending("P.strata"), model: try Self.model())
        defer { try? store.close() }
        var r = SeededRandom(seed: 1414)
        let owners = try Self.populate(store, &r)
        var compiledRuns = 0
        for round in 0..<300 {
            var request = FetchRequest(entityName: "Item", predicate: try Self.randomPredicate(&r, owners: owners))
            let sortable = ["k", "owner.name", "owner.rank", "owner.boss.name", "owner.boss.rank"]
            request.sortKeys = (0..<r.int(in: 0...2)).map { _ in SortKey(sortable[r.int(in: 0...sortable.count - 1)], ascending: r.chance(50)) }
            if !request.sortKeys.isEmpty { request.sortKeys.append(.ascending("n")) }
            if r.chance(40) { request.fetchLimit = [0, 1, 5, 20][r.int(in: 0...3)] }
            request.includesPendingChanges = r.chance(70)
            let (compiled, keepA) = try Self.context(store, owners: owners, seed: UInt64(round), interpreted: false)
            let (interpreted, keepB) = try Self.context(store, owners: owners, seed: UInt64(round), interpreted: true)
            if case .records = try request.explain(in: compiled).filter { compiledRuns += 1 }
            let expected = Self.outcome(request, in: interpreted)
            #expect(Self.outcome(request, in: compiled) == expected,
                    "round \(round): \(request.predicate?.description ?? "nil") pending \(request.includesPendingChanges)")
            #expect((try? compiled.count(for: request)) == (try? interpreted.count(for: request)), "round \(round)")
            withExtendedLifetime((keepA, keepB)) {}
        }
        #expect(compiledRuns == 300, "only \(compiledRuns) of 300 requests through to-one relationships were compiled")
    }

    @Test("a destination changed, loaded or deleted in the context is seen as the interpreter sees it")
    func destinationsInTheContext() throws {
        let store = try StoreUnderTest.inMemory(model: try Self.model())
        defer { try? store.close() }
        let setup = store.newContext()
        let owners = try ["a", "b", "c"].map { name -> ManagedObject in
            let owner = try setup.insert("Owner")
            try owner.setValue(name, forKey: "name")
            return owner
        }
        for n in 0..<30 {
            let item = try setup.insert("Item")
            try item.setValue(.int(Int64(n)), forKey: "n")
            try item.setObject(owners[n % 3], forKey: "owner")
        }
        try setup.save()
        let ids = owners.map(\.objectID)
        // Two contexts in the same state, one judging on records, one interpreting:
        // b loaded before another context saves a new name for it, a renamed and c
        // deleted without saving.
        let contexts = [store.newContext(), store.newContext()]
        contexts[1].interpretsFetches = true
        var held: [ManagedObject] = []
        for context in contexts { held += [try context.existingObject(with: ids[0]), try context.existingObject(with: ids[1])] }
        let other = store.newContext()
        try other.existingObject(with: ids[1]).setValue("b2", forKey: "name")
        try other.save()
        for context in contexts {
            try context.existingObject(with: ids[0]).setValue("z", forKey: "name")
            try context.delete(try context.existingObject(with: ids[2]))
        }
        var seen: [[Int64]] = []
        for name in ["a", "z", "b", "b2", "c"] {
            for pending in [true, false] {
                var request = FetchRequest(entityName: "Item", predicate: try Strata.Predicate(format: "owner.name == %@", name), sortKeys: [.ascending("n")])
                request.includesPendingChanges = pending
                let expected = Self.outcome(request, in: contexts[1])
                #expect(Self.outcome(request, in: contexts[0]) == expected, "\(name) pending \(pending)")
                if case .results(let ns) = expected { seen.append(ns) }
            }
        }
        // The cases differ: a's unsaved name counts only with pending changes, b's
        // loaded name is the context's, not the store's.
        #expect(Set(seen).count > 2)
        withExtendedLifetime(held) {}
    }

    @Test("a destination is read once per fetch, and no object is made for a candidate")
    func destinationsReadOnce() throws {
        let store = try StoreUnderTest.inMemory(model: try Self.model())
        defer { try? store.close() }
        let setup = store.newContext()
        var owners: [ManagedObject] = []
        for name in ["a", "b", "c"] {
            let owner = try setup.insert("Owner")
            try owner.setValue(name, forKey: "name")
            owners.append(owner)
        }
        for n in 0..<600 {
            let item = try setup.insert("Item")
            try item.setValue(.int(Int64(n)), forKey: "n")
            try item.setObject(owners[n % 3], forKey: "owner")
        }
        try setup.save()

        let context = store.newContext()
        store.resetStatistics()
        let request = FetchRequest(entityName: "Item", predicate: try Strata.Predicate(format: "owner.name == 'b' AND n < 300"))
        #expect(try context.count(for: request) == 100)
        // 600 items judged on their records, and 3 owners read once each: not one owner
        // per item, and not one managed object.
        #expect(store.statistics.recordsDecoded <= 603)
        #expect(context.objectsMade == 0)
        #expect(try context.fetch(request).count == 100)
        #expect(context.objectsMade == 100)
    }

    @Test("relationship == object reads the relationship's index, not the entity")
    func objectEqualityUsesIndex() throws {
        let store = try StoreUnderTest.inMemory(model: try Self.model())
        defer { try? store.close() }
        let setup = store.newContext()
        let owners = try (0..<50).map { _ in try setup.insert("Owner") }
        for n in 0..<1_000 {
            let item = try setup.insert("Item")
            try item.setValue(.int(Int64(n)), forKey: "n")
            try item.setObject(owners[n % 50], forKey: "owner")
        }
        try setup.save()
        let context = store.newContext()
        let owner = try context.object(with: owners[7].objectID)
        store.resetStatistics()
        let items = try context.fetch(FetchRequest(entityName: "Item", predicate: try Strata.Predicate(format: "owner == %@", owner), sortKeys: [.ascending("n")]))
        #expect(try items.map { try $0.int("n") } == Array(stride(from: 7, to: 1_000, by: 50)))
        #expect(store.statistics.recordsDecoded <= 40) // the 20 candidates, not 1,000 items
    }
}
