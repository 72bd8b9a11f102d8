import Foundation
import StrataLog
import Testing
@testable import Strata

/// Integer predicates judged as plain tests (`CompiledPredicate.integerTests`) against
/// the interpreter, at the edges: the extreme constants (nothing lies below Int64.min
/// or above Int64.max), nil fields (which only `!=` accepts), and ANDs of them.
@Suite struct IntegerTestsTests {
    static let values: [Int64?] = [nil, .min, .min + 1, -1, 0, 1, 7, .max - 1, .max]
    static let constants: [Int64] = [.min, .min + 1, -1, 0, 7, .max - 1, .max]

    static func store() throws -> ObjectStore {
        let model = try ObjectModel(version: "1") {
            Entity("Item") {
                Attribute("n", .int64, optional: true)
                Attribute("m", .int32, optional: true)
            }
        }
        var options = StoreOptions()
        options.fileSystem = InMemoryFileSystem()
        options.logger = .quiet
        let store = try StoreUnderTest.open(at: "/store", model: model, options: options)
        var objects: [[String: Value]] = []
        for n in values {
            for m in [nil, Int64(-3), 0, 5] as [Int64?] {
                objects.append(["n": n.map(Value.int) ?? .null, "m": m.map(Value.int) ?? .null])
            }
        }
        _ = try store.batchInsert(entityName: "Item", objects: objects)
        return store
    }

    static func keys(_ store: ObjectStore, _ predicate: Strata.Predicate, interpreted: Bool) throws -> [RecordKey] {
        let context = store.newContext()
        context.interpretsFetches = interpreted
        var request = FetchRequest(entityName: "Item")
        request.predicate = predicate
        return try context.fetch(request).map(\.objectID.key)
    }

    @Test func everyOperatorAtTheEdgesAgreesWithTheInterpreter() throws {
        let store = try Self.store()
        defer { try? store.close() }
        for op in ["==", "!=", "<", "<=", ">", ">="] {
            for c in Self.constants {
                let predicate = try Strata.Predicate(format: "n \(op) %@", c)
                let compiled = try Self.keys(store, predicate, interpreted: false)
                #expect(compiled == (try Self.keys(store, predicate, interpreted: true)), "n \(op) \(c)")
                let conjunction = try Strata.Predicate(format: "n \(op) %@ AND m != 0", c)
                #expect(try Self.keys(store, conjunction, interpreted: false) == (try Self.keys(store, conjunction, interpreted: true)), "n \(op) \(c) AND m != 0")
            }
        }
        for (low, high) in [(Int64.min, Int64.max), (-1, 7), (7, -1), (Int64.max, Int64.max)] {
            let predicate = try Strata.Predicate(format: "n BETWEEN {%@, %@} AND m >= -3", low, high)
            #expect(try Self.keys(store, predicate, interpreted: false) == (try Self.keys(store, predicate, interpreted: true)), "BETWEEN \(low) \(high)")
        }
    }

    @Test func onlyIntegerComparisonsAndTheirConjunctionsBecomeTests() throws {
        let store = try Self.store()
        defer { try? store.close() }
        let shape = try #require(store.schema.shapes["Item"])
        func tests(_ format: String, _ arguments: any PredicateArgument...) throws -> [IntegerTest]? {
            try CompiledFetch(FetchRequest(entityName: "Item", predicate: Strata.Predicate(format: format, argumentArray: arguments)), shape: shape).integerTests
        }
        #expect(try tests("n < %@", Int64.min)?.first.map { $0.low > $0.high } == true)
        #expect(try tests("n > %@", Int64.max)?.first.map { $0.low > $0.high } == true)
        #expect(try tests("n >= 1 AND m <= 4 AND n != 3")?.count == 3)
        #expect(try tests("n >= 1 OR m <= 4") == nil)
        #expect(try tests("NOT n >= 1") == nil)
        #expect(try tests("n >= 1.5") == nil)
    }
}
