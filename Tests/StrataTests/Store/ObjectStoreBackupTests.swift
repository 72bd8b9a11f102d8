import Foundation
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataLog

/// `ObjectStore.backup(to:)`: the engine's backup, awaited, run off the cooperative pool.
@Suite struct ObjectStoreBackupTests {
    static let model = try! ObjectModel(version: "backup-1") {
        Entity("Person") { Attribute("name", .string) }
    }

    @Test func anAwaitedBackupOpensWithTheSameObjects() async throws {
        let dir = try TemporaryDirectory("object-backup")
        defer { dir.remove() }
        let store = try ObjectStore(at: dir.appending("source"), model: Self.model)
        defer { try? store.close() }
        _ = try store.batchInsert(entityName: "Person", objects: (0..<50).map { ["name": .string("p\($0)")] })
        let calls = Locked(0)
        let report = try await store.backup(to: dir.appending("copy")) { _ in calls.withLock { $0 += 1 } }
        #expect(calls.withLock { $0 } > 0)
        #expect(report.sequence == (store.records as? LogStore)?.lastSequence)

        let copy = try ObjectStore(at: dir.appending("copy"), model: Self.model)
        defer { try? copy.close() }
        let context = copy.newContext()
        let names = try context.fetch(FetchRequest(entityName: "Person")).map { try $0.value(forKey: "name") }
        let strings = names.compactMap { value -> String? in if case .string(let name) = value { name } else { nil } }
        #expect(Set(strings) == Set((0..<50).map { "p\($0)" }))
    }

    @Test func anInMemoryStoreHasNoFileBackup() async throws {
        let store = try ObjectStore.inMemory(model: Self.model)
        defer { try? store.close() }
        let error = await #expect(throws: StrataError.self) { try await store.backup(to: "/tmp/never") }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == "this store type has no file backup")
    }
}
