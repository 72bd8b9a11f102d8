import Foundation
@testable import Strata
import StrataLog
import StrataTestSupport
import Testing

/// `ObjectStore.snapshot(at:)` reads the store as it stood after a past transaction:
/// objects, attributes, relationships, predicates and counts, checked against a
/// reference model of every state, through compactions and a moving history horizon.
@Suite struct ObjectPastSnapshotTests {
    /// An employee as the reference model holds it, and as a snapshot answers it.
    struct Employee: Equatable {
        var salary: Double
        var department: String?
    }

    /// What `store` answers: every employee by name, the members of each department,
    /// and two queries.
    static func answers(_ store: ObjectStore) throws -> (employees: [String: Employee], members: [String: Set<String>], rich: Int, count: Int) {
        let context = store.newContext()
        var employees: [String: Employee] = [:]
        for e in try context.fetch(FetchRequest(entityName: "Employee")) {
            let department = try e.object("department")?.string("name")
            employees[try e.string("name") ?? ""] = Employee(salary: try e.double("salary") ?? -1, department: department)
        }
        var members: [String: Set<String>] = [:]
        for d in try context.fetch(FetchRequest(entityName: "Department")) {
            let staff = try d.objects("employees").map { try $0.string("name") ?? "" }
            members[try d.string("name") ?? ""] = Set(staff)
        }
        let rich = try context.count(for: FetchRequest(entityName: "Employee", predicate: try Predicate(format: "salary >= 50")))
        return (employees, members, rich, try context.count(for: FetchRequest(entityName: "Employee")))
    }

    static func expected(_ employees: [String: Employee], departments: Set<String>) -> (employees: [String: Employee], members: [String: Set<String>], rich: Int, count: Int) {
        var members: [String: Set<String>] = [:]
        for d in departments { members[d] = [] }
        for (name, e) in employees { if let d = e.department { members[d, default: []].insert(name) } }
        return (employees, members, employees.values.filter { $0.salary >= 50 }.count, employees.count)
    }

    @Test func everyTokenFromTheHorizonReadsAsTheReferenceModelHadIt() async throws {
        let store = try HistoryTests.store { options in
            options.log.overlayEntryLimit = 64
            options.log.segmentSizeLimit = 16 << 10
            options.log.compactionGarbageRatio = 0.2
        }
        let context = store.newContext()
        var rng = SplitMix(seed: 0xA5_0F_2026)
        var employees: [String: Employee] = [:]
        var objects: [String: ManagedObject] = [:]
        var departments: [String: ManagedObject] = [:]
        var states: [UInt64: (employees: [String: Employee], departments: Set<String>)] = [:]
        for name in ["north", "south", "east"] {
            let d = try context.insert("Department")
            try d.setValue(name, forKey: "name")
            departments[name] = d
        }
        try context.save()
        states[store.currentHistoryToken.sequence] = ([:], Set(departments.keys))
        var serial = 0
        var operations = 0
        var tokens: [HistoryToken] = []
        while operations < 10_000 {
            for _ in 0..<5 {
                operations += 1
                let names = Array(objects.keys)
                switch names.isEmpty ? 0 : Int.random(in: 0..<10, using: &rng) {
                case 0..<3:
                    serial += 1
                    let name = "e\(serial)"
                    let e = try HistoryTests.insert(context, name, salary: Double.random(in: 0..<100, using: &rng).rounded())
                    let department = ["north", "south", "east", nil].randomElement(using: &rng)!
                    if let department { try e.setObject(departments[department], forKey: "department") }
                    objects[name] = e
                    employees[name] = Employee(salary: try e.double("salary") ?? 0, department: department)
                case 3..<6:
                    let name = names.randomElement(using: &rng)!
                    let salary = Double.random(in: 0..<100, using: &rng).rounded()
                    try objects[name]!.setValue(salary, forKey: "salary")
                    employees[name]!.salary = salary
                case 6..<8:
                    let name = names.randomElement(using: &rng)!
                    let department = ["north", "south", "east", nil].randomElement(using: &rng)!
                    try objects[name]!.setObject(department.map { departments[$0]! }, forKey: "department")
                    employees[name]!.department = department
                default:
                    let name = names.randomElement(using: &rng)!
                    try context.delete(objects[name]!)
                    objects[name] = nil
                    employees[name] = nil
                }
            }
            try context.save()
            let token = store.currentHistoryToken
            states[token.sequence] = (employees, Set(departments.keys))
            tokens.append(token)
            if tokens.count % 400 == 0 {
                // History before a past token is deleted, and compaction reclaims
                // what only it needed.
                try store.deleteHistory(before: tokens[tokens.count - 300])
                _ = try await store.compact(force: tokens.count % 800 == 0)
            }
        }
        let horizon = try #require(try store.historyHorizon())
        let kept = tokens.filter { $0.sequence >= horizon.sequence }
        #expect(kept.count >= 300)
        // Every kept token in a long run (STRATA_EVERY_TOKEN=1); every tenth otherwise.
        let every = ProcessInfo.processInfo.environment["STRATA_EVERY_TOKEN"] == "1" ? 1 : 10
        for (i, token) in kept.enumerated() where i % every == 0 || i == kept.count - 1 {
            let snapshot = try store.snapshot(at: token)
            defer { try? snapshot.close() }
            let state = try #require(states[token.sequence])
            let got = try Self.answers(snapshot)
            let want = Self.expected(state.employees, departments: state.departments)
            let wrong = Set(got.employees.keys).union(want.employees.keys).filter { got.employees[$0] != want.employees[$0] }
            #expect(wrong.isEmpty, "as of \(token.sequence): \(wrong.count) employees read wrong, such as \(wrong.sorted().prefix(5))")
            #expect(got.members == want.members, "departments as of \(token.sequence)")
            #expect(got.rich == want.rich && got.count == want.count, "counts as of \(token.sequence)")
            #expect(snapshot.currentHistoryToken == token)
            if !wrong.isEmpty { break }
        }
        // Before the horizon: refused, never answered from what is left.
        let before = try #require(tokens.last { $0.sequence < horizon.sequence })
        #expect { try store.snapshot(at: before) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        let report = try store.verify()
        #expect(report.isSound, "\(report.problems.prefix(3))")
    }

    @Test func tokensThatCannotBeReadAsOfAreRefused() throws {
        let store = try HistoryTests.store()
        let context = store.newContext()
        _ = try HistoryTests.insert(context, "Ada")
        try context.save()
        let token = store.currentHistoryToken
        _ = try HistoryTests.insert(context, "Bob")
        try context.save()
        // Of another store; newer than the last commit.
        let other = try HistoryTests.store()
        #expect { try other.snapshot(at: token) } throws: { ($0 as? StrataError)?.code == .invalidArgument }
        let later = HistoryToken(sequence: store.currentHistoryToken.sequence + 1, storeIdentifier: token.storeIdentifier)
        #expect { try store.snapshot(at: later) } throws: { ($0 as? StrataError)?.code == .invalidArgument }
        // Without history tracking there are no tokens to read as of.
        let untracked = try ObjectStore.inMemory(model: try HistoryTests.model())
        let untrackedContext = untracked.newContext()
        _ = try HistoryTests.insert(untrackedContext, "Cy")
        try untrackedContext.save()
        #expect { try untracked.snapshot(at: untracked.currentHistoryToken) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        // The token itself reads as of it: one employee.
        let then = try store.snapshot(at: token)
        defer { try? then.close() }
        #expect(try then.newContext().count(for: FetchRequest(entityName: "Employee")) == 1)
        let ids = try then.newContext().fetch(FetchRequest(entityName: "Employee")).map(\.objectID)
        #expect(ids.count == 1)
    }

    /// A store read as of the past has no history (its entries are not kept for it),
    /// and the history deleteHistory removed is reclaimed by compaction, not kept as the
    /// versions of the horizon.
    @Test func historyIsNotReadAsOfThePastNorKeptForIt() async throws {
        func historyBytes(tracking: Bool) async throws -> (kept: Int64, afterDelete: Int64) {
            let store = try HistoryTests.store { $0.historyTracking = tracking; $0.log.durability = .none }
            let context = store.newContext()
            let employee = try HistoryTests.insert(context, "Ada")
            try context.save()
            for i in 0..<400 {
                try employee.setValue(Double(i), forKey: "salary")
                try context.save()
            }
            let log = try #require(store.records as? LogStore)
            _ = try await store.compact(force: true)
            let kept = log.usage.segmentBytes
            if tracking {
                let past = try store.snapshot(at: try #require(try store.historyHorizon()))
                #expect { try past.fetchHistory() } throws: { ($0 as? StrataError)?.code == .invalidArgument }
                #expect(try past.newContext().count(for: FetchRequest(entityName: "Employee")) == 0)
                try await past.close()
                try store.deleteHistory(before: store.currentHistoryToken)
            }
            _ = try await store.compact(force: true)
            return (kept, log.usage.segmentBytes)
        }
        let without = try await historyBytes(tracking: false)
        let with = try await historyBytes(tracking: true)
        let history = with.kept - without.kept
        #expect(history > 10_000)
        #expect(with.afterDelete - without.afterDelete <= history / 20, "history took \(history) bytes, and \(with.afterDelete - without.afterDelete) after deleteHistory and a compaction")
    }

    /// In place (Int32 to Int64) and through a staging store (to Double).
    @Test(arguments: [AttributeType.int64, .double])
    func aTokenFromBeforeAMigrationIsRefused(level: AttributeType) throws {
        let directory = try TemporaryDirectory("past-migration")
        defer { directory.remove() }
        let path = directory.appending("s")
        var options = StoreOptions()
        options.historyTracking = true
        let first = try ObjectStore(at: path, model: try HistoryMigrationTests.model(level: .int32, version: "1"), options: options)
        let context = first.newContext()
        for i in 0..<3 {
            let employee = try context.insert("Employee")
            try employee.setValue("e\(i)", forKey: "name")
            try context.save()
        }
        let token = first.currentHistoryToken
        try first.close()
        options.migration = .inferred
        let migrated = try ObjectStore(at: path, model: try HistoryMigrationTests.model(level: level, version: "2"), options: options)
        defer { try? migrated.close() }
        // History restarted at the migration: its token still reads the migration's
        // entry, but the store cannot be read as of a state of the older model.
        #expect(try migrated.fetchHistory(after: token).count == 1)
        #expect { try migrated.snapshot(at: token) } throws: { ($0 as? StrataError)?.code == .historyTokenExpired }
        let now = try migrated.snapshot(at: migrated.currentHistoryToken)
        defer { try? now.close() }
        #expect(try now.newContext().count(for: FetchRequest(entityName: "Employee")) == 3)
        // A save after the migration can be read as of, and so can the state before it.
        let before = migrated.currentHistoryToken
        let later = migrated.newContext()
        try later.delete(try #require(try later.fetch(FetchRequest(entityName: "Employee")).first))
        try later.save()
        let then = try migrated.snapshot(at: before)
        defer { try? then.close() }
        #expect(try then.newContext().count(for: FetchRequest(entityName: "Employee")) == 3)
        #expect(try migrated.newContext().count(for: FetchRequest(entityName: "Employee")) == 2)
    }
}
