import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// Lightweight stages that rewrite no record. A store written with v1 goes
/// through three lightweight stages, with objects written at every version between,
/// so that it holds records of three layouts (and of four model versions); every object of every layout reads as
/// the newest model says, through faults, fetches and compiled queries, before and
/// after compaction and reopening, and the store answers as one built directly at v4.
@Suite("Migration: in place")
struct InPlaceMigrationTests {
    /// v1 → v2: `age` added before `email` (moving the unique attribute's position) with
    /// a default, `nickname` renamed `alias`, `salary` Int16 → Int32. v2 → v3: `alias`
    /// removed, entity Badge and an optional to-one Employee.badge added, `salary` Int32 →
    /// Int64. v3 → v4: `level` made required (every object has one), `age`'s default
    /// changed (objects written before `age` existed keep reading the old default).
    /// The entities every version shares as they are.
    static let department = Entity("Department") {
        Attribute("title", .string)
        Relationship("employees", to: "Employee", inverse: "department", toMany: true)
    }
    static let badge = Entity("Badge") {
        Attribute("label", .string)
        Relationship("holder", to: "Employee", inverse: "badge")
    }

    static func models() throws -> [ObjectModel] {
        let v1 = try ObjectModel(version: "1") {
            Self.department
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .int16, default: .int(0))
                Attribute("nickname", .string, optional: true)
                Attribute("level", .int16, optional: true)
                Attribute("email", .string, unique: true)
                Relationship("department", to: "Department", inverse: "employees")
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Self.department
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .int32, default: .int(0))
                Attribute("alias", .string, optional: true).renamed(from: "nickname")
                Attribute("level", .int16, optional: true)
                Attribute("age", .int32, default: .int(30))
                Attribute("email", .string, unique: true)
                Relationship("department", to: "Department", inverse: "employees")
            }
        }
        let v3 = try ObjectModel(version: "3") {
            Self.department
            Self.badge
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .int64, default: .int(0))
                Attribute("level", .int16, optional: true)
                Attribute("age", .int32, default: .int(30))
                Attribute("email", .string, unique: true)
                Relationship("department", to: "Department", inverse: "employees")
                Relationship("badge", to: "Badge", inverse: "holder")
            }
        }
        let v4 = try ObjectModel(version: "4") {
            Self.department
            Self.badge
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .int64, default: .int(0))
                Attribute("level", .int16, default: .int(1))
                Attribute("age", .int32, default: .int(40))
                Attribute("email", .string, unique: true)
                Relationship("department", to: "Department", inverse: "employees")
                Relationship("badge", to: "Badge", inverse: "holder")
            }
        }
        return [v1, v2, v3, v4]
    }

    static func plan(_ m: [ObjectModel], through last: Int) -> MigrationPlan {
        MigrationPlan(models: Array(m[0...last]), stages: (0..<last).map { .lightweight(from: m[$0], to: m[$0 + 1]) })
    }

    /// What each employee must read at v4, by email.
    struct Expected: Equatable {
        var name: String, salary: Int64, level: Int64, age: Int64, department: String?, badge: String?
    }

    static func open(_ path: String, _ model: ObjectModel, plan: MigrationPlan?, progress: ProgressLog? = nil) throws -> ObjectStore {
        var options = StoreOptions()
        if let plan { options.migration = .plan(plan) }
        if let progress { options.migrationProgress = { progress.append($0) } }
        return try ObjectStore(at: path, model: model, options: options)
    }

    /// Writes `count` employees at a version (`email` prefix `tag`), the first
    /// `withDepartment` in the store's first department.
    static func write(_ store: ObjectStore, version: Int, tag: String, count: Int, expected: inout [String: Expected]) throws {
        let context = store.newContext()
        let departments = try context.fetch(FetchRequest(entityName: "Department", sortKeys: [SortKey("title")]))
        for i in 0..<count {
            let employee = try context.insert("Employee")
            let email = "\(tag)\(i)@x"
            try employee.setValue("\(tag)-\(i)", forKey: "name")
            try employee.setValue(Value.int(Int64(100 * i + version)), forKey: "salary")
            try employee.setValue(Value.int(Int64(i % 3 + 1)), forKey: "level")
            try employee.setValue(email, forKey: "email")
            if version == 1 { try employee.setValue("nick\(i)", forKey: "nickname") }
            if version == 2 { try employee.setValue("alias\(i)", forKey: "alias") }
            var age: Int64 = 30
            if version >= 2 { age = Int64(20 + i); try employee.setValue(Value.int(age), forKey: "age") }
            let department = departments.isEmpty ? nil : departments[i % departments.count]
            if let department { try employee.setObject(department, forKey: "department") }
            var badge: String?
            if version >= 3, i.isMultiple(of: 2) {
                let b = try context.insert("Badge")
                try b.setValue("badge-\(tag)\(i)", forKey: "label")
                try employee.setObject(b, forKey: "badge")
                badge = "badge-\(tag)\(i)"
            }
            expected[email] = Expected(name: "\(tag)-\(i)", salary: Int64(100 * i + version), level: Int64(i % 3 + 1), age: age,
                                       department: try department?.string("title"), badge: badge)
        }
        try context.save()
    }

    static func check(_ store: ObjectStore, _ expected: [String: Expected]) throws {
        let context = store.newContext()
        let employees = try context.fetch(FetchRequest(entityName: "Employee"))
        #expect(employees.count == expected.count)
        for employee in employees {
            let email = try #require(try employee.string("email"))
            let want = try #require(expected[email])
            let got = Expected(name: try employee.string("name") ?? "", salary: try employee.value(forKey: "salary").intValue ?? -1,
                               level: try employee.value(forKey: "level").intValue ?? -1, age: try employee.value(forKey: "age").intValue ?? -1,
                               department: try employee.object("department")?.string("title"), badge: try employee.object("badge")?.string("label"))
            #expect(got == want, "\(email)")
        }
        // The unique index kept its number through the moved position: a lookup by
        // email finds each object, and a duplicate is refused.
        for (email, want) in expected.prefix(5) {
            let found = try context.fetch(FetchRequest(entityName: "Employee", predicate: .key("email") == .constant(.string(email))))
            #expect(try found.map { try $0.string("name") } == [want.name])
        }
        // Compiled queries over records of every layout judge the forwarded fields.
        let rich = try context.fetch(FetchRequest(entityName: "Employee", predicate: .key("salary") >= .constant(.int(200))))
        #expect(rich.count == expected.values.filter { $0.salary >= 200 }.count)
        let ofAge = try context.count(for: FetchRequest(entityName: "Employee", predicate: .key("age") == .constant(.int(30))))
        #expect(ofAge == expected.values.filter { $0.age == 30 }.count)
        // A bulk read (current-layout records read in place, older ones decoded and
        // forwarded) gives the same values as the objects.
        var bulk = 0
        try store.enumerateStoredValues(entityName: "Employee", attributes: ["email", "name", "salary", "level", "age"],
                                        toOneRelationships: ["department"], batchSize: 7) { batch in
            for stored in batch {
                guard case .string(let email) = stored.values[0], let want = expected[email] else {
                    Issue.record("\(stored.objectID) has no expected email: \(stored.values)")
                    continue
                }
                bulk += 1
                #expect(stored.values[1] == .string(want.name), "\(email)")
                #expect(stored.values[2].intValue ?? -1 == want.salary, "\(email)")
                #expect(stored.values[3].intValue ?? -1 == want.level, "\(email)")
                #expect(stored.values[4].intValue ?? -1 == want.age, "\(email)")
                let title = try stored.destinations[0].map { try context.existingObject(with: $0).string("title") } ?? nil
                #expect(title == want.department, "\(email)")
            }
        }
        #expect(bulk == expected.count)
        // Reverse index of the to-one (the derived to-many) answers for old records too.
        for department in try context.fetch(FetchRequest(entityName: "Department")) {
            let title = try department.string("title")
            #expect(try department.objects("employees").count == expected.values.filter { $0.department == title }.count)
        }
    }

    @Test func threeLightweightStagesRunInPlaceAndEveryLayoutReadsForward() throws {
        let m = try Self.models()
        let dir = try TemporaryDirectory("in-place")
        defer { dir.remove() }
        let path = dir.appending("Staff.strata")
        var expected: [String: Expected] = [:]
        do {
            let store = try Self.open(path, m[0], plan: nil)
            _ = try store.batchInsert(entityName: "Department", objects: [["title": .string("Sales")], ["title": .string("Lab")]])
            try Self.write(store, version: 1, tag: "a", count: 12, expected: &expected)
            try store.close()
        }
        // Each version in its own open, objects written at each.
        for version in 1...3 {
            let progress = ProgressLog()
            let store = try Self.open(path, m[version], plan: Self.plan(m, through: version), progress: progress)
            #expect(progress.passes == [.inPlace, .swap], "v\(version): in place, no pass over the objects, one metadata swap")
            try Self.write(store, version: version + 1, tag: ["b", "c", "d"][version - 1], count: 8, expected: &expected)
            try store.close()
        }
        // Records of three layouts: v3 → v4 changes no field (an optionality and a
        // default), so it needs no new one.
        do {
            let store = try Self.open(path, m[3], plan: nil)
            let table = try LayoutTable.decode(try #require(store.records.metadata[LayoutTable.metadataKey]))
            #expect(table.entities["Employee"]?.layouts.map(\.id) == [1, 2, 3])
            #expect(table.entities["Badge"]?.layouts.count == 1)
            try store.close()
        }
        // What v1's objects hold at v4: the age default of v2 (30), v4's level default is
        // not needed (every object had one); v2's values for alias are gone with it.
        let store = try Self.open(path, m[3], plan: nil)
        try Self.check(store, expected)
        // Every second employee gets a raise: every segment then holds superseded
        // versions, so compaction (below) rewrites it, and the employees it copies are
        // of older layouts. (Segments without garbage are left as they are.)
        do {
            let raise = store.newContext()
            let employees = try raise.fetch(FetchRequest(entityName: "Employee", sortKeys: [SortKey("email")]))
            for employee in employees.enumerated().filter({ $0.offset.isMultiple(of: 2) }).map(\.element) {
                let email = try #require(try employee.string("email"))
                let salary = try #require(try employee.value(forKey: "salary").intValue) + 1
                try employee.setValue(Value.int(salary), forKey: "salary")
                expected[email]?.salary = salary
            }
            try raise.save()
            try Self.check(store, expected)
        }
        // Uniqueness holds across layouts.
        let context = store.newContext()
        let copy = try context.insert("Employee")
        try copy.setValue("dup", forKey: "name")
        try copy.setValue("a0@x", forKey: "email")
        #expect(throws: StrataError.self) { try context.save() }
        context.rollback()
        // Compacted and reopened.
        guard let log = store.records as? LogStore else { Issue.record("not a log store"); return }
        try log.sealActiveSegment()
        let report = try log.compact(force: true)
        #expect(report.recordsReencoded > 0, "\(report)")
        // Every record is now of its entity's current layout.
        for (entity, tag) in store.schema.tags {
            let current = try #require(store.schema.shapes[entity]?.layout.layoutID)
            try store.records.scan(StoreSchema.range(tag: tag), batchSize: 64) { batch in
                for record in batch where record.key.rawValue & ObjectID.serialMask != 0 {
                    let written = try ObjectCodec.decode(record).layoutID
                    #expect(written == current, "\(entity) \(record.key)")
                }
            }
        }
        try store.close()
        let reopened = try Self.open(path, m[3], plan: nil)
        try Self.check(reopened, expected)
        #expect(try reopened.verify().isSound)

        // The same objects written directly at v4 answer the same.
        let direct = dir.appending("Direct.strata")
        let built = try Self.open(direct, m[3], plan: nil)
        _ = try built.batchInsert(entityName: "Department", objects: [["title": .string("Sales")], ["title": .string("Lab")]])
        let lookup = built.newContext()
        let departments = try lookup.fetch(FetchRequest(entityName: "Department"))
        let byTitle = Dictionary(uniqueKeysWithValues: try departments.map { (try $0.string("title") ?? "", $0.objectID) })
        let builder = built.newContext()
        for (email, want) in expected {
            let e = try builder.insert("Employee")
            try e.setValue(want.name, forKey: "name")
            try e.setValue(Value.int(want.salary), forKey: "salary")
            try e.setValue(Value.int(want.level), forKey: "level")
            try e.setValue(Value.int(want.age), forKey: "age")
            try e.setValue(email, forKey: "email")
            if let title = want.department, let id = byTitle[title] { try e.setObject(try builder.object(with: id), forKey: "department") }
            if let label = want.badge {
                let b = try builder.insert("Badge")
                try b.setValue(label, forKey: "label")
                try e.setObject(b, forKey: "badge")
            }
        }
        try builder.save()
        try Self.check(built, expected)
        let sort = [SortKey("name")]
        let a = try reopened.newContext().fetch(FetchRequest(entityName: "Employee", predicate: .key("age") < .constant(.int(28)), sortKeys: sort)).map { try $0.string("name") }
        let b = try built.newContext().fetch(FetchRequest(entityName: "Employee", predicate: .key("age") < .constant(.int(28)), sortKeys: sort)).map { try $0.string("name") }
        #expect(a == b && !a.isEmpty)
        try built.close()
        try reopened.close()
    }

    @Test func aV1StoreTakesEveryStageInPlaceInOneOpenAndOneSwap() throws {
        let m = try Self.models()
        let dir = try TemporaryDirectory("in-place-one-open")
        defer { dir.remove() }
        let path = dir.appending("Staff.strata")
        var expected: [String: Expected] = [:]
        let sequence: UInt64
        do {
            let store = try Self.open(path, m[0], plan: nil)
            _ = try store.batchInsert(entityName: "Department", objects: [["title": .string("Sales")]])
            try Self.write(store, version: 1, tag: "a", count: 10, expected: &expected)
            sequence = store.records.lastSequence
            try store.close()
        }
        let progress = ProgressLog()
        let store = try Self.open(path, m[3], plan: Self.plan(m, through: 3), progress: progress)
        #expect(progress.passes == [.inPlace, .inPlace, .inPlace, .swap], "one metadata swap for the whole plan")
        #expect(store.records.lastSequence == sequence, "no record written")
        #expect(!FileManager.default.fileExists(atPath: path + "/staging"))
        try Self.check(store, expected)
        try store.close()
    }

    /// A new index is built in place: the records get their terms (same value, same
    /// layout), the stage swaps the metadata; a new uniqueness rule the data breaks
    /// fails its check in place.
    @Test func aNewIndexIsBuiltInPlaceAndABrokenUniqueRuleFailsInPlace() throws {
        let m = try Self.models()
        func departments(version: String, indexed: Bool = false, unique: Bool = false) throws -> ObjectModel {
            try ObjectModel(version: version) {
                Entity("Department") {
                    Attribute("title", .string, indexed: indexed, unique: unique)
                    Relationship("employees", to: "Employee", inverse: "department", toMany: true)
                }
                Entity("Employee") {
                    Attribute("name", .string)
                    Attribute("salary", .int16, default: .int(0))
                    Attribute("nickname", .string, optional: true)
                    Attribute("level", .int16, optional: true)
                    Attribute("email", .string, unique: true)
                    Relationship("department", to: "Department", inverse: "employees")
                }
            }
        }
        let indexed = try departments(version: "2", indexed: true)
        let unique = try departments(version: "3", indexed: true, unique: true)
        let dir = try TemporaryDirectory("in-place-index")
        defer { dir.remove() }
        let path = dir.appending("Staff.strata")
        do {
            let store = try Self.open(path, m[0], plan: nil)
            _ = try store.batchInsert(entityName: "Department", objects: (0..<40).map { ["title": .string("D\($0 % 20)")] })
            try store.close()
        }
        do {
            let progress = ProgressLog()
            let store = try Self.open(path, indexed, plan: MigrationPlan(models: [m[0], indexed], stages: [.lightweight(from: m[0], to: indexed)]), progress: progress)
            #expect(progress.passes == [.inPlace, .swap])
            let table = try LayoutTable.decode(try #require(store.records.metadata[LayoutTable.metadataKey]))
            let title = try #require(table.entities["Department"]?.current?.fields.first { $0.name == "title" })
            let index = try #require(title.termIndex)
            #expect(table.retiredTermIndexes?.contains(index) == true, "reserved before the build")
            // The index answers: two departments per title, found through it.
            #expect(try store.records.keys(for: IndexTerm(index: index, value: try #require(ObjectCodec.orderedBytes(.string("D3"))))).count == 2)
            let found = try store.newContext().fetch(FetchRequest(entityName: "Department", predicate: .key("title") == .constant(.string("D3"))))
            #expect(found.count == 2)
            // New objects get the term as they are saved.
            _ = try store.batchInsert(entityName: "Department", objects: [["title": .string("D3")]])
            #expect(try store.records.keys(for: IndexTerm(index: index, value: try #require(ObjectCodec.orderedBytes(.string("D3"))))).count == 3)
            #expect(try store.verify().isSound)
            try store.close()
        }
        // Unique now: D3 is taken three times, and the check in place (InPlaceUniquenessTests)
        // refuses before any write or staging store, the store unchanged.
        let before = try DirectorySnapshot(path)
        let progress = ProgressLog()
        let error = #expect(throws: StrataError.self) {
            try Self.open(path, unique, plan: MigrationPlan(models: [m[0], indexed, unique], stages: [
                .lightweight(from: m[0], to: indexed), .lightweight(from: indexed, to: unique),
            ]), progress: progress)
        }
        #expect(error?.code == .uniquenessViolation, "\(String(describing: error))")
        #expect(!progress.passes.contains(.createInstances))
        #expect(try DirectorySnapshot(path) == before)
    }

    /// A rewriting stage after in-place ones reads every layout forward, and its
    /// staging store starts over with one layout per entity.
    @Test func aRewriteAfterInPlaceStagesReadsEveryLayout() throws {
        var m = try Self.models()
        let v5 = try ObjectModel(version: "5") {
            Self.department
            Self.badge
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .int64, default: .int(0))
                Attribute("level", .int16, default: .int(1))
                Attribute("age", .int32, default: .int(40), indexed: true)
                Attribute("email", .string, unique: true)
                Relationship("department", to: "Department", inverse: "employees")
                Relationship("badge", to: "Badge", inverse: "holder")
            }
        }
        m.append(v5)
        let dir = try TemporaryDirectory("in-place-then-rewrite")
        defer { dir.remove() }
        let path = dir.appending("Staff.strata")
        var expected: [String: Expected] = [:]
        do {
            let store = try Self.open(path, m[0], plan: nil)
            _ = try store.batchInsert(entityName: "Department", objects: [["title": .string("Sales")]])
            try Self.write(store, version: 1, tag: "a", count: 6, expected: &expected)
            try store.close()
        }
        do {
            let store = try Self.open(path, m[2], plan: Self.plan(m, through: 2))
            try Self.write(store, version: 3, tag: "c", count: 6, expected: &expected)
            try store.close()
        }
        // v3 → v4 in place, then v4 → v5 (a new index) rewritten, in one open.
        let progress = ProgressLog()
        let store = try Self.open(path, m[4], plan: Self.plan(m, through: 4), progress: progress)
        #expect(progress.passes.first == .inPlace && progress.passes.contains(.createInstances))
        try Self.check(store, expected)
        #expect(store.records.metadata[LayoutTable.metadataKey] == nil, "a rewritten store has one layout per entity")
        let aged = try store.newContext().fetch(FetchRequest(entityName: "Employee", predicate: .key("age") == .constant(.int(30))))
        #expect(aged.count == expected.values.filter { $0.age == 30 }.count)
        try store.close()
    }

    /// A to-one added in place to a parent entity gets one index number for the parent
    /// and its sub-entities, chosen clear of every number in use: here its position is
    /// the one an existing to-one had, which keeps its own.
    @Test func aNewInheritedToOneGetsOneFreshIndexNumber() throws {
        let v1 = try ObjectModel(version: "1") {
            Entity("Person") {
                Attribute("name", .string)
                Relationship("friend", to: "Person", inverse: "friendOf")
                Relationship("friendOf", to: "Person", inverse: "friend", toMany: true)
            }
            Entity("Student", parent: "Person") { Attribute("grade", .int16, default: .int(1)) }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Person") {
                Attribute("name", .string)
                Relationship("buddy", to: "Person", inverse: "buddyOf")
                Relationship("friend", to: "Person", inverse: "friendOf")
                Relationship("friendOf", to: "Person", inverse: "friend", toMany: true)
                Relationship("buddyOf", to: "Person", inverse: "buddy", toMany: true)
            }
            Entity("Student", parent: "Person") { Attribute("grade", .int16, default: .int(1)) }
        }
        let dir = try TemporaryDirectory("in-place-inherited")
        defer { dir.remove() }
        let path = dir.appending("People.strata")
        do {
            let store = try Self.open(path, v1, plan: nil)
            let context = store.newContext()
            let ada = try context.insert("Person")
            try ada.setValue("Ada", forKey: "name")
            let bob = try context.insert("Student")
            try bob.setValue("Bob", forKey: "name")
            try bob.setObject(ada, forKey: "friend")
            try context.save()
            try store.close()
        }
        let progress = ProgressLog()
        let store = try Self.open(path, v2, plan: MigrationPlan(models: [v1, v2], stages: [.lightweight(from: v1, to: v2)]), progress: progress)
        #expect(progress.passes == [.inPlace, .swap])
        let table = try LayoutTable.decode(try #require(store.records.metadata[LayoutTable.metadataKey]))
        func termIndex(_ entity: String, _ field: String) -> UInt32? {
            table.entities[entity]?.current?.fields.first { $0.name == field }?.termIndex
        }
        #expect(termIndex("Person", "buddy") == termIndex("Student", "buddy"))
        #expect(termIndex("Person", "buddy") != termIndex("Person", "friend"))
        #expect(termIndex("Person", "friend") == termIndex("Student", "friend"))
        let context = store.newContext()
        let people = try context.fetch(FetchRequest(entityName: "Person", sortKeys: [SortKey("name")]))
        let (ada, bob) = (people[0], people[1])
        #expect(try ada.objects("friendOf").map { try $0.string("name") } == ["Bob"], "the old to-one's terms still answer")
        #expect(try ada.objects("buddyOf").isEmpty, "the new to-one's number holds no old term")
        let cy = try context.insert("Student")
        try cy.setValue("Cy", forKey: "name")
        try cy.setObject(ada, forKey: "buddy")
        try bob.setObject(ada, forKey: "buddy")
        try context.save()
        let fresh = store.newContext()
        let again = try fresh.existingObject(with: ada.objectID)
        #expect(Set(try again.objects("buddyOf").map { try $0.string("name") }) == ["Bob", "Cy"])
        #expect(try again.objects("friendOf").map { try $0.string("name") } == ["Bob"])
        try store.close()
    }

    /// `rewriteOlderLayouts()`: every record of an older layout written again in the
    /// current one, the older layouts dropped from the table (their fields' index
    /// numbers retired), the objects unchanged; a later in-place stage still works.
    @Test func olderLayoutsAreRewrittenAndDropped() throws {
        let m = try Self.models()
        let dir = try TemporaryDirectory("in-place-drop")
        defer { dir.remove() }
        let path = dir.appending("Staff.strata")
        var expected: [String: Expected] = [:]
        do {
            let store = try Self.open(path, m[0], plan: nil)
            _ = try store.batchInsert(entityName: "Department", objects: [["title": .string("Sales")], ["title": .string("Lab")]])
            try Self.write(store, version: 1, tag: "a", count: 12, expected: &expected)
            try store.close()
        }
        for version in 1...3 {
            let store = try Self.open(path, m[version], plan: Self.plan(m, through: version))
            try Self.write(store, version: version + 1, tag: ["b", "c", "d"][version - 1], count: 8, expected: &expected)
            try store.close()
        }
        do {
            let store = try Self.open(path, m[3], plan: nil)
            #expect(try store.rewriteOlderLayouts(batchSize: 5) == 20, "12 objects of layout 1, 8 of layout 2")
            #expect(try store.rewriteOlderLayouts() == 0)
            try Self.check(store, expected)
            try store.close()
        }
        let store = try Self.open(path, m[3], plan: nil)
        let table = try LayoutTable.decode(try #require(store.records.metadata[LayoutTable.metadataKey]))
        #expect(table.entities["Employee"]?.layouts.map(\.id) == [3])
        for (entity, tag) in store.schema.tags {
            let current = try #require(store.schema.shapes[entity]?.layout.layoutID)
            try store.records.scan(StoreSchema.range(tag: tag), batchSize: 64) { batch in
                for record in batch {
                    let written = try ObjectCodec.decode(record).layoutID
                    #expect(written == current, "\(entity) \(record.key)")
                }
            }
        }
        try Self.check(store, expected)
        #expect(try store.verify().isSound)
        try store.close()

        // One more in-place stage over the trimmed table.
        var entities = m[3].entities
        let index = try #require(entities.firstIndex { $0.name == "Employee" })
        entities[index].declaredProperties.append(.attribute(AttributeDescription(name: "room", type: .string, isOptional: true)))
        let v5 = try ObjectModel(version: "5", entities: entities)
        let progress = ProgressLog()
        let migrated = try Self.open(path, v5, plan: MigrationPlan(models: [m[3], v5], stages: [.lightweight(from: m[3], to: v5)]), progress: progress)
        #expect(progress.passes == [.inPlace, .swap])
        let after = try LayoutTable.decode(try #require(migrated.records.metadata[LayoutTable.metadataKey]))
        #expect(after.entities["Employee"]?.layouts.map(\.id) == [3, 4])
        try Self.check(migrated, expected)
        try migrated.close()
    }
}

private extension Value {
    var intValue: Int64? {
        if case .int(let i) = self { return i }
        return nil
    }
}
