import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A staged plan is one migration: its stages run into staging stores, each reading
/// the one before, and only the last is swapped in. An error in any stage leaves the
/// store at the version it had, byte for byte — never at an intermediate version — and
/// blobs an intermediate stage wrote arrive with the final one.
@Suite struct StagedPlanAtomicityTests {
    /// v1 Book(title) → v2 + pages (lightweight) → v3 + cover, an external binary that
    /// stage 2's policy writes anew → v4 + blurb (a custom stage with hooks).
    static func models() throws -> [ObjectModel] {
        let v1 = try ObjectModel(version: "1") { Entity("Book") { Attribute("title", .string) } }
        let v2 = try ObjectModel(version: "2") {
            Entity("Book") {
                Attribute("title", .string)
                Attribute("pages", .int64, default: .int(100))
            }
        }
        let v3 = try ObjectModel(version: "3") {
            Entity("Book") {
                Attribute("title", .string)
                Attribute("pages", .int64, default: .int(100))
                Attribute("cover", .binary, optional: true, externalStorage: true)
            }
        }
        let v4 = try ObjectModel(version: "4") {
            Entity("Book") {
                Attribute("title", .string)
                Attribute("pages", .int64, default: .int(100))
                Attribute("cover", .binary, optional: true, externalStorage: true)
                Attribute("blurb", .string, optional: true)
            }
        }
        return [v1, v2, v3, v4]
    }

    /// 20 KiB, above the external-storage threshold: it goes to the blob area.
    static func cover(_ title: String) -> Data { Data(repeating: UInt8(title.utf8.count), count: 20 << 10) + Data(title.utf8) }

    final class CoverPolicy: EntityMigrationPolicy, @unchecked Sendable {
        let fail: Bool
        init(fail: Bool) { self.fail = fail }
        override func createDestinationInstances(forSource book: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
            if fail { throw StrataError(.migrationFailed, "stage 2 refused") }
            try super.createDestinationInstances(forSource: book, mapping: mapping, manager: manager)
            let title = try book.string("title") ?? ""
            for destination in try manager.destinationInstances(forEntityMapping: mapping.name, sourceInstances: [book]) {
                try destination.setValue(StagedPlanAtomicityTests.cover(title), forKey: "cover")
            }
        }
    }

    static func plan(_ m: [ObjectModel], failIn stage: Int? = nil) throws -> MigrationPlan {
        var covers = try MappingModel.inferred(from: m[1], to: m[2])
        for index in covers.entityMappings.indices {
            covers.entityMappings[index].kind = .custom
            covers.entityMappings[index].policyFactory = { CoverPolicy(fail: stage == 2) }
        }
        return MigrationPlan(models: m, stages: [
            .lightweight(from: m[0], to: m[1]),
            .custom(from: m[1], to: m[2], mapping: covers),
            .custom(from: m[2], to: m[3], willMigrate: nil, didMigrate: { new, _ in
                if stage == 3 { throw StrataError(.migrationFailed, "stage 3 refused") }
                for book in try new.fetch(FetchRequest(entityName: "Book")) {
                    try book.setValue("About \(try book.string("title") ?? "")", forKey: "blurb")
                }
            }),
        ])
    }

    static let titles = ["Dune", "Emma", "Ulysses", "Beloved", "Middlemarch"]

    static func makeV1(at path: String, model: ObjectModel) throws {
        let store = try ObjectStore(at: path, model: model)
        let context = store.newContext()
        for title in titles { try context.insert("Book").setValue(title, forKey: "title") }
        try context.save()
        try store.close()
    }

    @Test(arguments: [2, 3])
    func anErrorInAnyStageLeavesTheStoreAtV1ByteForByte(stage: Int) throws {
        let dir = try TemporaryDirectory("plan-atomic")
        defer { dir.remove() }
        let m = try Self.models()
        try Self.makeV1(at: dir.path, model: m[0])
        let before = try DirectorySnapshot(dir.path)
        var options = StoreOptions()
        options.migration = .plan(try Self.plan(m, failIn: stage))
        let error = #expect(throws: StrataError.self) { _ = try ObjectStore(at: dir.path, model: m[3], options: options) }
        #expect(error?.message.contains("stage \(stage) refused") == true, "\(String(describing: error))")
        #expect(try DirectorySnapshot(dir.path) == before, "nothing of an earlier stage was swapped in")

        let store = try ObjectStore(at: dir.path, model: m[0])
        defer { try? store.close() }
        let context = store.newContext()
        let titles = try context.fetch(FetchRequest(entityName: "Book", sortKeys: [.ascending("title")])).map { try $0.string("title") }
        #expect(titles == Self.titles.sorted())
        #expect(try store.verify().isSound)
    }

    @Test func blobsAnIntermediateStageWroteArriveWithTheLastStage() throws {
        let dir = try TemporaryDirectory("plan-blobs")
        defer { dir.remove() }
        let m = try Self.models()
        try Self.makeV1(at: dir.path, model: m[0])
        var options = StoreOptions()
        options.migration = .plan(try Self.plan(m))
        let progress = ProgressLog()
        options.migrationProgress = { progress.append($0) }
        do {
            let store = try ObjectStore(at: dir.path, model: m[3], options: options)
            #expect(progress.entries.filter { $0.pass == .swap }.count == 1, "one swap for the whole plan")
            try store.close()
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/staging"))

        // Reopened from disk, with no migration asked: the covers are in the store's own blob area.
        let store = try ObjectStore(at: dir.path, model: m[3])
        defer { try? store.close() }
        #expect(try store.verify().isSound)
        let context = store.newContext()
        let books = try context.fetch(FetchRequest(entityName: "Book", sortKeys: [.ascending("title")]))
        #expect(books.count == Self.titles.count)
        for book in books {
            let title = try #require(try book.string("title"))
            #expect(try book.int("pages") == 100)
            #expect(try book.data("cover") == Self.cover(title))
            #expect(try book.string("blurb") == "About \(title)")
        }
        #expect(store.statistics.blobBytesRead > 0)
    }
}
