import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Concurrent readers while a writer saves, each task with its own context. `make
/// test-tsan` runs this suite (its name holds "Concurrency") under the thread sanitizer.
@Suite struct ContextConcurrencyTests {
    static let objects = 20
    static let generations = 40

    /// A store of `objects` employees whose salaries all hold the generation 0.
    static func store(_ dir: TemporaryDirectory) throws -> ObjectStore {
        let store = try StoreUnderTest.open(at: dir.path, model: try ContextFixtures.company())
        let context = store.newContext()
        for i in 0..<objects { _ = try ContextFixtures.employee(context, "E\(i)", salary: 0) }
        try context.save()
        return store
    }

    @Test func readersSeeWholeTransactionsWhileAWriterSaves() async throws {
        let dir = try TemporaryDirectory("concurrency-readers")
        defer { dir.remove() }
        let store = try Self.store(dir)
        defer { try? store.close() }

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // The writer: every save sets every salary to the next generation.
                let context = store.newContext()
                let employees = try context.fetch(FetchRequest(entityName: "Employee"))
                for generation in 1...Self.generations {
                    for employee in employees { try employee.setValue(Double(generation), forKey: "salary") }
                    try context.save()
                }
            }
            for _ in 0..<3 {
                group.addTask {
                    var last = 0.0
                    while last < Double(Self.generations) {
                        // A fetch with a predicate reads its candidates' records together:
                        // what it sees is one transaction's state, never a mix.
                        let context = store.newContext()
                        let request = FetchRequest(entityName: "Employee", predicate: try Predicate(format: "salary >= 0"))
                        let salaries = try context.fetch(request).map { try $0.double("salary") ?? -1 }
                        #expect(salaries.count == Self.objects)
                        let seen = Set(salaries)
                        #expect(seen.count == 1, "a reader saw a mix of transactions: \(seen.sorted())")
                        let generation = seen.min() ?? 0
                        #expect(generation >= last, "a reader went back in time")
                        last = generation
                        await Task.yield()
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// A large save frees the inserts nobody holds on another thread
    /// (`ObjectContext.releaseElsewhere`) while this one goes on using the context:
    /// held ones are registered and loaded, dropped ones read back from the store, and
    /// the thread sanitizer sees no race between the frees and the context.
    @Test func aLargeSaveFreesDroppedInsertsElsewhere() throws {
        let dir = try TemporaryDirectory("concurrency-release")
        defer { dir.remove() }
        let store = try StoreUnderTest.open(at: dir.path, model: try ContextFixtures.company())
        defer { try? store.close() }
        let context = store.newContext()
        var earlier: [ObjectID] = []
        for round in 0..<4 {
            var kept: [ManagedObject] = []
            for i in 0..<(2 * ObjectContext.releaseElsewhereMinimum) {
                let employee = try ContextFixtures.employee(context, "R\(round)-\(i)", salary: Double(i))
                if i % 100 == 0 { kept.append(employee) }
            }
            try context.save()
            // Straight on, while the other thread frees: faults placed in the registry
            // (the frees must not reach it), then read back.
            let faults = try earlier.map { try context.object(with: $0) }
            #expect(faults.allSatisfy { $0.isFault })
            #expect(faults.count == round * 2 * ObjectContext.releaseElsewhereMinimum)
            #expect(kept.allSatisfy { !$0.isFault && !$0.hasChanges })
            #expect(context.registeredObjects.count == kept.count + faults.count)
            let all = try context.fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "name BEGINSWITH %@", "R\(round)-")))
            #expect(all.count == 2 * ObjectContext.releaseElsewhereMinimum)
            #expect(try all.reduce(0.0) { $0 + (try $1.double("salary") ?? 0) } == Double((2 * ObjectContext.releaseElsewhereMinimum - 1) * ObjectContext.releaseElsewhereMinimum))
            #expect(try kept.map { try $0.double("salary") ?? -1 } == stride(from: 0, to: 2 * ObjectContext.releaseElsewhereMinimum, by: 100).map(Double.init))
            earlier += all.map(\.objectID)
        }
    }

    @Test func concurrentWritersLoseNoUpdate() async throws {
        let dir = try TemporaryDirectory("concurrency-writers")
        defer { dir.remove() }
        let store = try Self.store(dir)
        defer { try? store.close() }
        let id = try #require(try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Employee")).first)
        let writers = 4
        let increments = 25

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<writers {
                group.addTask {
                    let context = store.newContext()
                    let employee = try context.object(with: id)
                    var done = 0
                    while done < increments {
                        let salary = try employee.double("salary") ?? 0
                        try employee.setValue(salary + 1, forKey: "salary")
                        do {
                            try context.save()
                            done += 1
                        } catch let error as StrataError where error.code == .conflict {
                            // Optimistic locking: re-read the newest value and try again.
                            context.refresh(employee, mergeChanges: false)
                        }
                        await Task.yield()
                    }
                }
            }
            try await group.waitForAll()
        }
        let reader = store.newContext()
        let total = try reader.object(with: id).double("salary")
        #expect(total == Double(writers * increments))
    }

    @Test func changeStreamsSeeEveryCommitInOrder() async throws {
        let store = try StoreUnderTest.inMemory(model: try ContextFixtures.company())
        let stream = store.changes()
        let writers = 4
        let saves = 10
        let listener = Task {
            var sequences: [UInt64] = []
            for await change in stream {
                sequences.append(change.sequence)
                if sequences.count == writers * saves { break }
            }
            return sequences
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<writers {
                group.addTask {
                    let context = store.newContext()
                    for s in 0..<saves {
                        _ = try ContextFixtures.employee(context, "W\(w)-\(s)")
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        let sequences = await listener.value
        #expect(sequences.count == writers * saves)
        #expect(sequences == sequences.sorted())
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Employee")) == writers * saves)
    }
}
