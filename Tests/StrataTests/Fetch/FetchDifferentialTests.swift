import Foundation
import StrataLog
import Testing
import StrataTestSupport
@testable import Strata

/// Compiled fetches (judged on records) against interpreted ones (judged on managed
/// objects, `ObjectContext.interpretsFetches`): random objects, random predicates,
/// sort keys, windows and unsaved changes; both must give the same results in the
/// same order, or the same error (code and message), misspelt key paths included.
@Suite("Fetch: compiled predicates agree with interpreted ones")
struct FetchDifferentialTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Owner") {
                Attribute("name", .string, optional: true)
                Relationship("items", to: "Item", inverse: "owner", toMany: true)
            }
            Entity("Item") {
                Attribute("n", .int64)
                Attribute("i", .int64, optional: true, indexed: true)
                Attribute("j", .int32, optional: true)
                Attribute("d", .double, optional: true)
                Attribute("s", .string, optional: true, indexed: true)
                Attribute("t", .string, optional: true)
                Attribute("b", .bool, optional: true)
                Attribute("when", .date, optional: true)
                Attribute("blob", .binary, optional: true, externalStorage: true)
                Attribute("tr", .string, optional: true, transient: true)
                Relationship("owner", to: "Owner", inverse: "items", optional: true)
            }
            Entity("Special", parent: "Item") {
                Attribute("extra", .int64, optional: true)
            }
        }
    }

    static let strings: [String?] = [nil, "", "a", "A", "ab", "Ab", "abc", "b", "é", "e\u{301}", "ö", "a*", "zz"]
    static let doubles: [Double?] = [nil, -1.5, -0.0, 0.0, 1.0, 2.5, .nan, 3]

    static func randomValue(_ r: inout SeededRandom) -> Value {
        switch r.int(in: 0...7) {
        case 0: return .null
        case 1, 2: return .int(Int64(r.int(in: -3...4)))
        case 3: return doubles[r.int(in: 1...doubles.count - 1)].map(Value.double) ?? .null
        case 4, 5: return strings[r.int(in: 1...strings.count - 1)].map(Value.string) ?? .null
        case 6: return .bool(r.chance(50))
        default: return .date(Date(timeIntervalSinceReferenceDate: Double(r.int(in: 0...3))))
        }
    }

    static func fill(_ object: ManagedObject, n: Int, _ r: inout SeededRandom) throws {
        try object.setValue(.int(Int64(n)), forKey: "n")
        if r.chance(85) { try object.setValue(.int(Int64(r.int(in: -3...4))), forKey: "i") }
        if r.chance(80) { try object.setValue(.int(Int64(r.int(in: -2...2))), forKey: "j") }
        if let d = doubles[r.int(in: 0...doubles.count - 1)] { try object.setValue(.double(d), forKey: "d") }
        if let s = strings[r.int(in: 0...strings.count - 1)] { try object.setValue(.string(s), forKey: "s") }
        if let t = strings[r.int(in: 0...strings.count - 1)] { try object.setValue(.string(t), forKey: "t") }
        if r.chance(70) { try object.setValue(.bool(r.chance(50)), forKey: "b") }
        if r.chance(70) { try object.setValue(.date(Date(timeIntervalSinceReferenceDate: Double(r.int(in: 0...3)))), forKey: "when") }
        // Past the threshold below: an external binary, which a compiled fetch judges as an object.
        if r.chance(20) { try object.setValue(.binary(Data(repeating: UInt8(r.int(in: 0...2)), count: r.chance(50) ? 4 : 64)), forKey: "blob") }
        if object.entity.name == "Special", r.chance(70) { try object.setValue(.int(Int64(r.int(in: 0...3))), forKey: "extra") }
    }

    static let keys = ["n", "i", "j", "d", "s", "t", "b", "when", "blob"]
    /// Key paths a compiled fetch leaves to objects, or that do not exist.
    static let oddKeys = ["tr", "owner", "owner.name", "nope", "s.count", "extra"]

    static func randomComparison(_ r: inout SeededRandom) -> Strata.Predicate {
        let key = r.chance(8) ? oddKeys[r.int(in: 0...oddKeys.count - 1)] : keys[r.int(in: 0...keys.count - 1)]
        let op = PredicateOperator.allCases[r.int(in: 0...PredicateOperator.allCases.count - 1)]
        var rhs: Strata.PredicateExpression = .constant(randomValue(&r))
        switch op {
        case .between: rhs = .list([.constant(randomValue(&r)), .constant(randomValue(&r))])
        case .in: rhs = .list((0..<r.int(in: 0...3)).map { _ -> Strata.PredicateExpression in .constant(randomValue(&r)) })
        case .beginsWith, .endsWith, .contains, .like, .matches:
            if r.chance(80) { rhs = .constant(strings[r.int(in: 1...strings.count - 1)].map(Value.string) ?? .null) }
        default: break
        }
        if r.chance(5) { rhs = .keyPath(keys[r.int(in: 0...6)]) }
        var options: StringComparisonOptions = []
        if r.chance(20) { options.insert(.caseInsensitive) }
        if r.chance(10) { options.insert(.diacriticInsensitive) }
        let quantifier: PredicateQuantifier = r.chance(5) ? .any : .direct
        if r.chance(10), case .constant = rhs, op != .in, op != .between, !op.isStringOperator {
            return .comparison(PredicateComparison(rhs, op, .keyPath(key), quantifier: .direct, options: options))
        }
        return .comparison(PredicateComparison(.keyPath(key), op, rhs, quantifier: quantifier, options: options))
    }

    static func randomPredicate(_ r: inout SeededRandom, depth: Int = 0) -> Strata.Predicate {
        guard depth < 2, r.chance(45) else { return r.chance(3) ? .truePredicate : randomComparison(&r) }
        switch r.int(in: 0...2) {
        case 0: return .and((0..<r.int(in: 1...3)).map { _ in randomPredicate(&r, depth: depth + 1) })
        case 1: return .or((0..<r.int(in: 1...3)).map { _ in randomPredicate(&r, depth: depth + 1) })
        default: return .not(randomPredicate(&r, depth: depth + 1))
        }
    }

    static func randomRequest(_ r: inout SeededRandom) -> FetchRequest {
        var request = FetchRequest(entityName: r.chance(80) ? "Item" : "Special")
        if r.chance(90) { request.predicate = randomPredicate(&r) }
        let sortable = ["n", "i", "d", "s", "t", "b", "when", "j"]
        request.sortKeys = (0..<r.int(in: 0...2)).map { _ in
            SortKey(r.chance(3) ? "nope" : sortable[r.int(in: 0...sortable.count - 1)], ascending: r.chance(50),
                    options: r.chance(20) ? .caseInsensitive : [])
        }
        if r.chance(50) { request.fetchLimit = [0, 1, 3, 10][r.int(in: 0...3)] }
        if r.chance(25) { request.fetchOffset = r.int(in: 0...3) }
        request.includesPendingChanges = r.chance(70)
        request.includesSubentities = r.chance(85)
        return request
    }

    /// What a fetch gave: each result's `n` in order, or the error.
    enum Outcome: Equatable, CustomStringConvertible {
        case results([Int64])
        case failure(StrataError.Code, String)

        var description: String {
            switch self {
            case .results(let ns): "\(ns)"
            case .failure(let code, let message): "\(code): \(message)"
            }
        }
    }

    /// A context with the same unsaved changes in both modes: updates, a delete, an
    /// insert, and a few objects loaded (which a compiled fetch judges as objects).
    static func context(_ store: ObjectStore, ids: [ObjectID], seed: UInt64, interpreted: Bool) throws -> ObjectContext {
        let context = store.newContext()
        context.interpretsFetches = interpreted
        var r = SeededRandom(seed: seed, stream: 99)
        for _ in 0..<3 {
            let object = try context.object(with: ids[r.int(in: 0...ids.count - 1)])
            let change = r.int(in: 0...3)
            if object.isDeleted { continue }
            switch change {
            case 0: try object.setValue(.int(Int64(r.int(in: -3...4))), forKey: "i")
            case 1: try object.setValue(strings[r.int(in: 0...strings.count - 1)].map(Value.string) ?? .null, forKey: "s")
            case 2: try context.delete(object)
            default: _ = try object.value(forKey: "n") // loaded, unchanged
            }
        }
        if r.chance(50) {
            try fill(try context.insert(r.chance(50) ? "Item" : "Special"), n: 1000, &r)
        }
        return context
    }

    static func outcome(_ request: FetchRequest, in context: ObjectContext) -> Outcome {
        do {
            return .results(try context.fetch(request).map { try $0.value(forKey: "n") }.map { if case .int(let n) = $0 { n } else { -1 } })
        } catch let error as StrataError {
            return .failure(error.code, error.message)
        } catch {
            return .failure(.invalidArgument, "\(error)")
        }
    }

    /// An empty store of `model()` of the given kind (on disk: in `dir`), its options
    /// changed by `configure`.
    static func store(_ kind: FetchFixtures.Kind, in dir: TemporaryDirectory, _ configure: (inout StoreOptions) -> Void = { _ in }) throws -> ObjectStore {
        var options = StoreOptions()
        options.externalStorageThreshold = 32
        configure(&options)
        return kind == .inMemory
            ? try StoreUnderTest.inMemory(model: try model(), options: options)
            : try StoreUnderTest.open(at: dir.appending("D.strata"), model: try model(), options: options)
    }

    /// Saves `count` random items (a quarter of them `Special`), `n` numbering them.
    static func saveItems(_ count: Int, in store: ObjectStore, _ r: inout SeededRandom) throws {
        let setup = store.newContext()
        for n in 0..<count {
            try fill(try setup.insert(r.chance(25) ? "Special" : "Item"), n: n, &r)
        }
        try setup.save()
    }

    @Test("random predicates, sorts and windows", arguments: FetchFixtures.Kind.underTest)
    func randomFetches(kind: FetchFixtures.Kind) throws {
        let dir = try TemporaryDirectory("differential")
        defer { dir.remove() }
        let store = try Self.store(kind, in: dir)
        defer { try? store.close() }
        var r = SeededRandom(seed: 14)
        let setup = store.newContext()
        let owners = try (0..<3).map { i -> ManagedObject in
            let owner = try setup.insert("Owner")
            try owner.setValue(.string(["a", "B", "c"][i]), forKey: "name")
            return owner
        }
        for n in 0..<120 {
            let item = try setup.insert(r.chance(25) ? "Special" : "Item")
            try Self.fill(item, n: n, &r)
            if r.chance(60) { try item.setObject(owners[r.int(in: 0...2)], forKey: "owner") }
        }
        try setup.save()
        let ids = try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Item"))

        var compiledRuns = 0
        for round in 0..<400 {
            let request = Self.randomRequest(&r)
            let compiled = try Self.context(store, ids: ids, seed: UInt64(round), interpreted: false)
            let interpreted = try Self.context(store, ids: ids, seed: UInt64(round), interpreted: true)
            if case .records = try? request.explain(in: compiled).filter { compiledRuns += 1 }
            let expected = Self.outcome(request, in: interpreted)
            let found = Self.outcome(request, in: compiled)
            #expect(found == expected, "round \(round): \(request.predicate?.description ?? "nil") sorted by \(request.sortKeys.map(\.keyPath)) limit \(String(describing: request.fetchLimit)) offset \(request.fetchOffset) pending \(request.includesPendingChanges)")
            // count and ids go the same way.
            if case .results = expected {
                #expect((try? compiled.count(for: request)) == (try? interpreted.count(for: request)), "round \(round)")
            }
        }
        // Many random comparisons are type errors the validation catches first; of the
        // rest, most must really have been compiled, or the comparison says little.
        #expect(compiledRuns > 80, "only \(compiledRuns) of 400 requests were compiled")
    }

    /// An AND of one to three integer comparisons on `n`, `i` (indexed, often nil) and
    /// `j` (an int32, often nil): the predicates a compiled fetch judges on the encoded
    /// record (`RawIntegerJudge`) without decoding a field.
    static func randomIntegerPredicate(_ r: inout SeededRandom) -> Strata.Predicate {
        let operators: [PredicateOperator] = [.equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .between]
        let comparisons = (0..<r.int(in: 1...3)).map { _ -> Strata.Predicate in
            let key = ["n", "i", "j"][r.int(in: 0...2)]
            let op = operators[r.int(in: 0...operators.count - 1)]
            func constant() -> Strata.PredicateExpression {
                // Now and then the extremes, whose neighbours do not exist.
                .constant(.int(r.chance(5) ? (r.chance(50) ? .min : .max) : Int64(r.int(in: -4...125))))
            }
            let rhs: Strata.PredicateExpression = op == .between ? .list([constant(), constant()]) : constant()
            return .comparison(PredicateComparison(.keyPath(key), op, rhs))
        }
        return comparisons.count == 1 ? comparisons[0] : .and(comparisons)
    }

    @Test("integer predicates judged on the encoded record agree with objects", arguments: FetchFixtures.Kind.underTest)
    func integerPredicates(kind: FetchFixtures.Kind) throws {
        let dir = try TemporaryDirectory("differential-integers")
        defer { dir.remove() }
        let store = try Self.store(kind, in: dir)
        defer { try? store.close() }
        var r = SeededRandom(seed: 41)
        try Self.saveItems(120, in: store, &r)
        let ids = try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Item"))

        var judgedRaw = 0
        for round in 0..<300 {
            var request = FetchRequest(entityName: r.chance(80) ? "Item" : "Special")
            request.predicate = Self.randomIntegerPredicate(&r)
            // Sorting by an integer reads it with the predicate's fields (the top-k's
            // early rejection), whether or not the predicate tests it.
            request.sortKeys = (0..<r.int(in: 0...2)).map { _ in SortKey(["n", "i", "j", "s"][r.int(in: 0...3)], ascending: r.chance(50)) }
            if r.chance(50) { request.fetchLimit = [0, 1, 3, 10][r.int(in: 0...3)] }
            request.includesPendingChanges = r.chance(70)
            let compiled = try Self.context(store, ids: ids, seed: UInt64(round), interpreted: false)
            let interpreted = try Self.context(store, ids: ids, seed: UInt64(round), interpreted: true)
            let layout = try compiled.schema.layout(request.entityName)
            if let fetches = compiled.compileFetch(request, tags: [layout.tag]).fetches, fetches[layout.tag]?.rawJudge != nil { judgedRaw += 1 }
            let expected = Self.outcome(request, in: interpreted)
            #expect(Self.outcome(request, in: compiled) == expected, "round \(round): \(request.predicate?.description ?? "nil") sorted by \(request.sortKeys.map(\.keyPath)) limit \(String(describing: request.fetchLimit))")
            #expect((try? compiled.count(for: request)) == (try? interpreted.count(for: request)), "round \(round)")
        }
        #expect(judgedRaw == 300, "only \(judgedRaw) of 300 integer predicates were judged on encoded records")
    }
}
