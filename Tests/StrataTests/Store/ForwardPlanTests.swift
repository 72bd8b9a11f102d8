import Foundation
import Testing
import StrataLog
@testable import Strata

/// A record of an older layout is read forward by its layout's plan (FORMAT.md §11.4):
/// the plan must answer exactly what checking the record against its layout, applying
/// the forward map and checking the result against the current layout answers, while
/// skipping the second check where it cannot fail and growing the decoded array in
/// place where the map only appends fills.
@Suite struct ForwardPlanTests {
    // MARK: The plan against the checks it replaces

    /// What reading forward meant before plans: check, apply, check again.
    static func reference(_ fields: [FieldValue], older: [FieldRule], map: StoreSchema.ForwardMap, current: [FieldRule]) throws -> [FieldValue] {
        try FieldRule.check(fields, against: older, key: RecordKey(1), layout: 1, entity: "E")
        let forwarded = map.apply(fields)
        try FieldRule.check(forwarded, against: current, key: RecordKey(1), layout: 2, entity: "E")
        return forwarded
    }

    static let rules: [FieldRule] = [
        .attribute(.int64, external: false), .attribute(.int16, external: false), .attribute(.string, external: false),
        .attribute(.double, external: false), .attribute(.binary, external: true), .toOne, .toManyList, FieldRule(code: 0xFF),
    ]
    static let values: [FieldValue] = [
        .null, .value(.null), .value(.int(3)), .value(.string("a")), .value(.double(1.5)), .value(.binary(Data([1]))),
        .reference(RecordKey(9)), .references([RecordKey(9)]),
    ]

    /// A deterministic generator (SplitMix64), so that a failure repeats.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Random older and current layouts, maps (fields kept in place, moved, dropped,
    /// added with fills that fit or do not, rules kept or changed) and records (mostly
    /// fitting their layout): the plan's answer is the reference's, error or fields.
    @Test func aPlanAnswersWhatCheckApplyCheckAnswers() throws {
        var g = Generator(state: 15)
        var appended = 0, skippedRecheck = 0, fitted = 0
        for _ in 0..<20_000 {
            let olderCount = Int.random(in: 0...4, using: &g)
            let older = (0..<olderCount).map { _ in Self.rules.randomElement(using: &g)! }
            let currentCount = Int.random(in: 0...5, using: &g)
            let appendOnly = olderCount <= currentCount && Bool.random(using: &g)
            var sources: [Int?] = []
            var current: [FieldRule] = []
            var fills: [FieldValue] = []
            for number in 0..<currentCount {
                let source: Int? = if appendOnly {
                    number < olderCount ? number : nil
                } else {
                    Int.random(in: 0...3, using: &g) == 0 || olderCount == 0 ? nil : Int.random(in: 0..<olderCount, using: &g)
                }
                sources.append(source)
                // Mostly the older field's rule, as a migration keeps it.
                if let source, Int.random(in: 0...5, using: &g) > 0 { current.append(older[source]) } else { current.append(Self.rules.randomElement(using: &g)!) }
                fills.append(source == nil && Bool.random(using: &g) ? Self.values.randomElement(using: &g)! : .null)
            }
            let map = StoreSchema.ForwardMap(sources: sources, fills: fills)
            let plan = ForwardPlan(layoutID: 1, olderRules: older, map: map, currentRules: current)
            // A record that fits its layout, mostly; else one field or the count off.
            var fields = older.map { rule in Self.values.filter(rule.admits).randomElement(using: &g) ?? .null }
            switch Int.random(in: 0...9, using: &g) {
            case 0 where !fields.isEmpty: fields[Int.random(in: 0..<fields.count, using: &g)] = Self.values.randomElement(using: &g)!
            case 1: fields.append(Self.values.randomElement(using: &g)!)
            case 2 where !fields.isEmpty: fields.removeLast()
            default: break
            }
            let expected = Result { try Self.reference(fields, older: older, map: map, current: current) }
            var object = StoredObject(key: RecordKey(1), sequence: 1, fields: fields, layoutID: 1)
            object.fields.reserveCapacity(currentCount)
            let got = Result { try plan.forward(&object, currentRules: current, currentLayout: 2, entity: "E"); return object.fields }
            switch (expected, got) {
            case (.success(let want), .success(let have)):
                #expect(want == have, "older \(older.map(\.code)) current \(current.map(\.code)) sources \(sources) fields \(fields)")
                #expect(object.layoutID == 2)
                fitted += 1
            case (.failure(let want), .failure(let have)):
                #expect((want as? StrataError)?.code == .corrupt && (have as? StrataError)?.code == .corrupt)
            default:
                Issue.record("older \(older.map(\.code)) current \(current.map(\.code)) sources \(sources) fills \(fills) fields \(fields): reference \(expected), plan \(got)")
            }
            if plan.appendsFills { appended += 1 }
            if !plan.recheck { skippedRecheck += 1 }
        }
        // The cases the plan treats apart all came up.
        #expect(appended > 1_000 && skippedRecheck > 1_000 && fitted > 1_000, "\(appended) \(skippedRecheck) \(fitted)")
    }

    /// An added attribute: the older fields stay in place, the fill is appended, and
    /// nothing needs a second check. A changed rule or a fill the current rule does
    /// not admit does; a moved field makes a new array.
    @Test func aPlanKnowsWhatItCanSkip() {
        let int = FieldRule.attribute(.int64, external: false), string = FieldRule.attribute(.string, external: false)
        let added = ForwardPlan(layoutID: 1, olderRules: [string, int],
                                map: .init(sources: [0, 1, nil], fills: [.null, .null, .value(.int(7))]), currentRules: [string, int, int])
        #expect(added.appendsFills && !added.recheck)
        let changed = ForwardPlan(layoutID: 1, olderRules: [string, int],
                                  map: .init(sources: [0, 1], fills: [.null, .null]), currentRules: [string, string])
        #expect(changed.appendsFills && changed.recheck)
        let badFill = ForwardPlan(layoutID: 1, olderRules: [string],
                                  map: .init(sources: [0, nil], fills: [.null, .value(.string("x"))]), currentRules: [string, int])
        #expect(badFill.recheck)
        let moved = ForwardPlan(layoutID: 1, olderRules: [string, int],
                                map: .init(sources: [1, 0], fills: [.null, .null]), currentRules: [int, string])
        #expect(!moved.appendsFills && !moved.recheck)
        let dropped = ForwardPlan(layoutID: 1, olderRules: [string, int],
                                  map: .init(sources: [0], fills: [.null]), currentRules: [string])
        #expect(!dropped.appendsFills)
    }

    // MARK: Through the store

    static func models() throws -> (ObjectModel, ObjectModel) {
        let v1 = try ObjectModel(version: "1") {
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .int64)
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .int64)
                Attribute("bonus", .int64, default: .int(7))
            }
        }
        return (v1, v2)
    }

    /// Four employees written at v1, the store migrated in place to v2 (bonus added,
    /// default 7), and the first and third given bonus 1: two records of each layout.
    /// With `damage`, the second employee's record is replaced by those bytes.
    static func migratedStore(damagingSecondWith damage: [UInt8]? = nil) throws -> (ObjectStore, [ObjectID]) {
        let (v1, v2) = try models()
        var options = StoreOptions()
        options.fileSystem = InMemoryFileSystem()
        options.logger = .quiet
        do {
            let store = try ObjectStore(at: "/store", model: v1, options: options)
            let context = store.newContext()
            for n in 0..<4 {
                let employee = try context.insert("Employee")
                try employee.setValue("E\(n)", forKey: "name")
                try employee.setValue(.int(Int64(100 + n)), forKey: "salary")
            }
            try context.save()
            try store.close()
        }
        var migrating = options
        migrating.migration = .inferred
        let store = try ObjectStore(at: "/store", model: v2, options: migrating)
        let context = store.newContext()
        let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Employee"))
        for n in [0, 2] { try context.object(with: ids[n]).setValue(.int(1), forKey: "bonus") }
        try context.save()
        if let damage {
            var batch = WriteBatch()
            batch.put(ids[1].key, value: damage)
            try store.records.commit(batch)
        }
        return (store, ids)
    }

    /// `version 2 · layout 1 · count · fields`: a record of the layout before bonus.
    static func olderRecord(_ fields: [[UInt8]], layout: UInt8 = 1) -> [UInt8] { [2, layout, UInt8(fields.count)] + fields.flatMap { $0 } }
    static func string(_ text: String) -> [UInt8] { [1, 5, UInt8(text.utf8.count)] + Array(text.utf8) }
    static func int(_ value: Int64) -> [UInt8] { [1, 2, UInt8(truncatingIfNeeded: (value << 1) ^ (value >> 63))] }

    @Test func recordsOfBothLayoutsReadAlikeOnEveryPath() throws {
        let (store, ids) = try Self.migratedStore()
        defer { try? store.close() }
        #expect(store.schema.hasOlderLayouts)
        let context = store.newContext()
        for (n, id) in ids.enumerated() {
            let employee = try context.object(with: id)
            #expect(try employee.string("name") == "E\(n)")
            #expect(try employee.int("salary") == 100 + n)
            #expect(try employee.int("bonus") == (n % 2 == 0 ? 1 : 7))
        }
        let fetched = try store.newContext().fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "bonus == 7")))
        #expect(Set(fetched.map(\.objectID)) == [ids[1], ids[3]])
        var request = FetchRequest(entityName: "Employee")
        request.propertiesToFetch = ["bonus"]
        let bonuses = try store.newContext().fetchDictionaries(request).compactMap { $0["bonus"] }
        #expect(bonuses.count == 4 && bonuses.filter { $0 == .int(7) }.count == 2 && bonuses.filter { $0 == .int(1) }.count == 2)
        // The schema's own decode, as verify, uniqueness and migrations read.
        for (n, id) in ids.enumerated() {
            let record = try #require(try store.records.get(id.key))
            let object = try store.schema.decode(record)
            #expect(object.fields == [.value(.string("E\(n)")), .value(.int(Int64(100 + n))), .value(.int(n % 2 == 0 ? 1 : 7))])
            #expect(object.layoutID == store.schema.shapes["Employee"]?.layoutID)
        }
    }

    @Test func theSameBytesAsAnOlderRecordReadForward() throws {
        let (store, ids) = try Self.migratedStore(damagingSecondWith: Self.olderRecord([Self.string("Ada"), Self.int(5)]))
        defer { try? store.close() }
        let context = store.newContext()
        let employee = try context.object(with: ids[1])
        #expect(try employee.string("name") == "Ada")
        #expect(try employee.int("salary") == 5)
        #expect(try employee.int("bonus") == 7)
    }

    static let damaged: [(String, [UInt8])] = [
        ("a field missing", olderRecord([string("Ada")])),
        ("the current layout's field count under the older id", olderRecord([string("Ada"), int(5), int(7)])),
        ("a string where the older salary is", olderRecord([string("Ada"), string("5")])),
        ("a reference where the older name is", olderRecord([[3, 1, 0, 0, 0, 0, 0, 1, 0], int(5)])),
        ("a layout the entity never had", olderRecord([string("Ada"), int(5)], layout: 9)),
    ]

    /// A record of an older layout that does not hold to it is `.corrupt` wherever it
    /// is read forward: a fault, a fetch, a dictionary fetch, the schema's decode.
    @Test(arguments: damaged)
    func anOlderRecordThatDoesNotHoldToItsLayoutIsCorrupt(label: String, value: [UInt8]) throws {
        let (store, ids) = try Self.migratedStore(damagingSecondWith: value)
        defer { try? store.close() }
        func expectCorrupt(_ what: String, _ body: () throws -> Void) {
            let error = #expect(throws: StrataError.self, "\(label): \(what)") { try body() }
            #expect(error?.code == .corrupt, "\(label): \(what): \(String(describing: error))")
        }
        expectCorrupt("a fault") {
            let context = store.newContext()
            let employee = try context.object(with: ids[1])
            for key in ["name", "salary", "bonus"] { _ = try employee.value(forKey: key) }
        }
        expectCorrupt("a fetch") {
            _ = try store.newContext().fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "bonus == 7"))).map { try $0.value(forKey: "name") }
        }
        expectCorrupt("a dictionary fetch") {
            var request = FetchRequest(entityName: "Employee")
            request.propertiesToFetch = ["name", "bonus"]
            _ = try store.newContext().fetchDictionaries(request)
        }
        expectCorrupt("the schema's decode") { _ = try store.schema.decode(try #require(try store.records.get(ids[1].key))) }
    }
}
