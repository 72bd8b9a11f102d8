import Testing
import Foundation
import StrataTestSupport
@testable import Strata
@testable import StrataLog

/// An index or uniqueness rule built in place reads the fields it needs from each
/// record without decoding the object: records of the current layout, and records of
/// an older layout that read forward into those fields (a store migrated in place
/// before). Both must give the same terms, so that a value held by one of each is a
/// duplicate, and a store of both gets every term.
@Suite struct InPlaceIndexBuildTests {
    static func model(_ version: String, code: Bool = false, unique: Bool = false) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Part") {
                // Declared first from v2 on: `title` moves in the current layout, and
                // an older record's field numbers are not the current ones.
                if code { Attribute("code", .string, optional: true) }
                Attribute("title", .string, unique: unique)
                Attribute("weight", .double, optional: true)
            }
        }
    }

    static func open(_ path: String, _ model: ObjectModel, plan: MigrationPlan?) throws -> ObjectStore {
        var options = StoreOptions()
        if let plan { options.migration = .plan(plan) }
        return try ObjectStore(at: path, model: model, options: options)
    }

    /// Parts at v1, an attribute added in place (their records stay of v1's layout),
    /// some parts written again at v2 (v2's layout); then `title` made unique.
    static func store(at path: String, titles: [String], rewritten: Set<Int>) throws -> (v1: ObjectModel, v2: ObjectModel) {
        let v1 = try model("1"), v2 = try model("2", code: true)
        do {
            let store = try open(path, v1, plan: nil)
            _ = try store.batchInsert(entityName: "Part", objects: titles.enumerated().map { i, title in
                ["title": .string(title), "weight": i % 3 == 0 ? .null : .double(Double(i) / 4)]
            })
            try store.close()
        }
        let store = try open(path, v2, plan: MigrationPlan(models: [v1, v2], stages: [.lightweight(from: v1, to: v2)]))
        defer { try? store.close() }
        let context = store.newContext()
        let parts = try context.fetch(FetchRequest(entityName: "Part", sortKeys: [SortKey("title")]))
        for (i, part) in parts.enumerated() where rewritten.contains(i) { try part.setValue(.string("c\(i)"), forKey: "code") }
        try context.save()
        return (v1, v2)
    }

    @Test func aRuleBuiltOverOlderAndCurrentLayoutsHoldsForEveryObject() throws {
        let dir = try TemporaryDirectory("in-place-build")
        defer { dir.remove() }
        let path = dir.appending("Parts.strata")
        let titles = (0..<300).map { "part-\($0)" }
        let (v1, v2) = try Self.store(at: path, titles: titles, rewritten: Set(stride(from: 0, to: 300, by: 2)))
        let v3 = try Self.model("3", code: true, unique: true)
        let store = try Self.open(path, v3, plan: MigrationPlan(models: [v1, v2, v3], stages: [
            .lightweight(from: v1, to: v2), .lightweight(from: v2, to: v3),
        ]))
        defer { try? store.close() }
        let context = store.newContext()
        for title in titles {
            let found = try context.fetch(FetchRequest(entityName: "Part", predicate: .key("title") == .constant(.string(title))))
            #expect(found.count == 1, "\(title)")
        }
        // The rule holds from now on, whichever layout the holder's record has.
        for taken in ["part-7", "part-8"] {
            let writer = store.newContext()
            try writer.insert("Part").setValue(.string(taken), forKey: "title")
            #expect(throws: StrataError.self) { try writer.save() }
        }
        #expect(try store.verify().isSound)
    }

    /// One holder of a value in the older layout and one in the current: a duplicate.
    @Test(arguments: [(3, 150), (150, 3)])
    func aDuplicateAcrossLayoutsIsFound(pair: (Int, Int)) throws {
        let dir = try TemporaryDirectory("in-place-build-dup")
        defer { dir.remove() }
        let path = dir.appending("Parts.strata")
        var titles = (0..<300).map { "part-\($0)" }
        titles[pair.1] = titles[pair.0]
        // Sorted by title, the pair is adjacent; one of the two is written again at v2.
        let sorted = titles.enumerated().sorted { ($0.element, $0.offset) < ($1.element, $1.offset) }
        let first = try #require(sorted.firstIndex { $0.element == titles[pair.0] })
        let (v1, v2) = try Self.store(at: path, titles: titles, rewritten: [first])
        let v3 = try Self.model("3", code: true, unique: true)
        let before = try StoreContents(path)
        let error = #expect(throws: StrataError.self) {
            try Self.open(path, v3, plan: MigrationPlan(models: [v1, v2, v3], stages: [
                .lightweight(from: v1, to: v2), .lightweight(from: v2, to: v3),
            ]))
        }
        #expect(error?.code == .uniquenessViolation, "\(String(describing: error))")
        #expect(try StoreContents(path) == before)
    }
}
