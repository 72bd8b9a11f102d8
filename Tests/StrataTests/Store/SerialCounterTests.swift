import Foundation
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataLog

/// An entity's serial counter is written only where its last key may be gone (a
/// transaction that deletes its objects, and once at the end of a migration), not with
/// every insert: the counter is the entity's lowest key, and a counter in every segment
/// made every segment's key range span the older keys, so a lookup asked every newer
/// segment's filter (166 filters a lookup at ten million objects). Object ids are still
/// never given out twice.
@Suite struct SerialCounterTests {
    static let v1 = try! ObjectModel(version: "serials-1") {
        Entity("Person") { Attribute("name", .string) }
    }
    static let v2 = try! ObjectModel(version: "serials-2") {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("city", .string, default: .string("Lyon"))
        }
    }

    enum Deletion: String, CaseIterable { case save, batchDelete, beforeMigration }

    @Test(arguments: Deletion.allCases)
    func idsOfDeletedNewestObjectsAreNotGivenOutAgain(_ deletion: Deletion) throws {
        let dir = try TemporaryDirectory("serials-\(deletion.rawValue)")
        defer { dir.remove() }
        do {
            let store = try ObjectStore(at: dir.path, model: Self.v1)
            let ids = try store.batchInsert(entityName: "Person", objects: (0..<10).map { ["name": .string("p\($0)")] })
            #expect(ids.map(\.serial) == Array(1...10))
            switch deletion {
            case .save, .beforeMigration:
                let context = store.newContext()
                for id in ids.suffix(3) { try context.delete(try context.object(with: id)) }
                try context.save()
            case .batchDelete:
                let removed = try store.batchDelete(entityName: "Person", predicate: try Predicate(format: "name IN %@", ["p7", "p8", "p9"]))
                #expect(removed == 3)
            }
            try store.close()
        }
        var options = StoreOptions()
        var model = Self.v1
        if deletion == .beforeMigration {
            options.migration = .mappings([try MappingModel.inferred(from: Self.v1, to: Self.v2)], models: [Self.v2])
            model = Self.v2
        }
        let store = try ObjectStore(at: dir.path, model: model, options: options)
        defer { try? store.close() }
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Person")) == 7)
        let context = store.newContext()
        let fresh = try context.insert("Person")
        try fresh.setValue("new", forKey: "name")
        try context.save()
        #expect(fresh.objectID.serial == 11, "serials 8–10 were given out before")
        let batch = try store.batchInsert(entityName: "Person", objects: [["name": .string("batch")]])
        #expect(batch.map(\.serial) == [12])
    }

    /// Inserts alone (a context's saves, batch inserts) leave no key behind in older
    /// segments: sealed segments' key ranges follow one another without overlapping.
    @Test func insertOnlySegmentsHaveDisjointKeyRanges() throws {
        let dir = try TemporaryDirectory("serials-ranges")
        defer { dir.remove() }
        var options = StoreOptions()
        options.log.overlayEntryLimit = 100
        let store = try ObjectStore(at: dir.path, model: Self.v1, options: options)
        defer { try? store.close() }
        for start in stride(from: 0, to: 1_000, by: 50) {
            _ = try store.batchInsert(entityName: "Person", objects: (start..<start + 50).map { ["name": .string("p\($0)")] })
        }
        for start in stride(from: 0, to: 500, by: 25) {
            let context = store.newContext()
            for i in start..<start + 25 { try context.insert("Person").setValue("c\(i)", forKey: "name") }
            try context.save()
        }
        let log = try #require(store.records as? LogStore)
        try log.sealActiveSegment()
        let ranges = log.state.withLock { $0.index.files.map { ($0.footer.minKey, $0.footer.maxKey) } }.sorted { $0.0 < $1.0 }
        #expect(ranges.count >= 10, "\(ranges.count) segments")
        for (earlier, later) in zip(ranges, ranges.dropFirst()) {
            #expect(earlier.1 < later.0, "segments overlap: \(earlier) and \(later)")
        }
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Person")) == 1_500)
    }
}
