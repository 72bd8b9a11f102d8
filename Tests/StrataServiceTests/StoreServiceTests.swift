import Foundation
import Logging
import MetricsTestKit
import ServiceLifecycle
import ServiceLifecycleTestKit
import Strata
import StrataLog
@testable import StrataService
import StrataTestSupport
import Testing

/// `StoreService`: metrics through swift-metrics, maintenance by its policy, and a
/// graceful shutdown that drains, closes and releases the store.
@Suite struct StoreServiceTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Todo") {
                Attribute("title", .string)
                Attribute("completed", .bool, default: .bool(false))
            }
        }
    }

    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func operationsAreTimedAndErrorsCountedByCode() async throws {
        let metrics = TestMetrics()
        let store = try ObjectStore.inMemory(model: try Self.model())
        let service = StoreService(store: store, metrics: StoreMetrics(factory: metrics), logger: Self.logger)
        let id = try await store.write { context in
            let todo = try context.insert("Todo")
            try todo.setValue("Write tests", forKey: "title")
            return todo.objectID
        }
        _ = try await store.read { try $0.existingObject(with: id).value(forKey: "title") }
        await #expect(throws: StrataError.self) {
            try await store.read { context in _ = try context.existingObject(with: try #require(store.objectID(entityName: "Todo", serial: 99))) }
        }
        let base = [("db.system.name", "strata")]
        let writes = try metrics.expectTimer("db.client.operation.duration", base + [("db.operation.name", "write")])
        #expect(writes.values.count == 1)
        let saves = try metrics.expectTimer("db.client.operation.duration", base + [("db.operation.name", "save")])
        #expect(saves.values.isEmpty, "a write's save is reported as the write")
        let reads = try metrics.expectTimer("db.client.operation.duration", base + [("db.operation.name", "read")])
        #expect(reads.values.count == 1)
        let errors = try metrics.expectCounter("strata.errors", base + [("db.operation.name", "read"), ("error.type", "objectNotFound")])
        #expect(errors.totalValue == 1)
        _ = service
    }

    @Test func samplesCountCommitsAndSetGauges() async throws {
        let metrics = TestMetrics()
        let store = try ObjectStore.inMemory(model: try Self.model())
        let storeMetrics = StoreMetrics(factory: metrics)
        _ = StoreService(store: store, metrics: storeMetrics, logger: Self.logger)
        storeMetrics.sample(store)
        for i in 0 ..< 5 {
            try await store.write { context in try context.insert("Todo").setValue("T\(i)", forKey: "title") }
        }
        storeMetrics.sample(store)
        let base = [("db.system.name", "strata")]
        #expect(try metrics.expectCounter("strata.commits", base).totalValue >= 5)
        #expect(try metrics.expectCounter("strata.fsyncs", base).totalValue >= 1)
        #expect(try metrics.expectCounter("strata.bytes.written", base).totalValue > 0)
        #expect(try metrics.expectGauge("strata.store.size", base).lastValue ?? 0 > 0)
        #expect(try metrics.expectGauge("strata.pending.writes", base).lastValue == 0)
        #expect(try metrics.expectGauge("strata.garbage.ratio", base).lastValue != nil)
        #expect(try metrics.expectGauge("strata.block_cache.hit.ratio", base).lastValue != nil)
    }

    @Test func conflictRetriesAreCounted() async throws {
        let metrics = TestMetrics()
        let store = try ObjectStore.inMemory(model: try Self.model())
        _ = StoreService(store: store, metrics: StoreMetrics(factory: metrics), logger: Self.logger)
        let id = try await store.write { context in
            let todo = try context.insert("Todo")
            try todo.setValue("First", forKey: "title")
            return todo.objectID
        }
        let attempts = Locked(0)
        try await store.write { context in
            let todo = try context.existingObject(with: id)
            _ = try todo.string("title")
            if attempts.withLock({ a -> Int in a += 1; return a }) == 1 {
                let other = store.newContext()
                try other.existingObject(with: id).setValue("Theirs", forKey: "title")
                try other.save()
            }
            try todo.setValue("Mine", forKey: "title")
        }
        #expect(try metrics.expectCounter("strata.conflicts.retried", [("db.system.name", "strata")]).totalValue == 1)
    }

    @Test func gracefulShutdownDrainsClosesAndReleasesTheStore() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/store"
        let model = try Self.model()
        let service = try await StoreService.open(at: path, model: model, metrics: StoreMetrics(factory: TestMetrics()), logger: Self.logger)
        let store = service.store
        let ids = try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: [ObjectID].self) { group in
                group.addTask {
                    try await service.run()
                    return []
                }
                var ids: [ObjectID] = []
                for i in 0 ..< 20 {
                    ids.append(try await store.write { context in
                        let todo = try context.insert("Todo")
                        try todo.setValue("T\(i)", forKey: "title")
                        return todo.objectID
                    })
                }
                trigger.triggerGracefulShutdown()
                var all: [ObjectID] = ids
                for try await more in group { all += more }
                return all
            }
        }
        #expect(store.health.state == .closed)
        await #expect { try await store.write { _ in } } throws: { ($0 as? StrataError)?.code == .closed }
        // The lock is released: the store opens again, with every acknowledged write.
        let reopened = try await ObjectStore.open(at: path, model: model)
        let titles = try await reopened.read { context in try ids.map { try context.existingObject(with: $0).string("title") } }
        #expect(titles == (0 ..< 20).map { "T\($0)" })
        try await reopened.close()
    }

    @Test func compactsWhenGarbagePassesThePolicy() async throws {
        var options = StoreOptions()
        options.log.segmentSizeLimit = 16 << 10
        let store = try ObjectStore.inMemory(model: try Self.model(), options: options)
        let id = try await store.write { context in
            let todo = try context.insert("Todo")
            try todo.setValue("First", forKey: "title")
            return todo.objectID
        }
        // Rewrites of one object: almost every byte is a superseded version.
        for i in 0 ..< 400 {
            try await store.write { try $0.existingObject(with: id).setValue(String(repeating: "x", count: 64) + "\(i)", forKey: "title") }
        }
        #expect(store.records.usage.garbageRatio > 0.5)
        var configuration = StoreService.Configuration()
        configuration.checkInterval = .milliseconds(10)
        configuration.compactionMinimumInterval = .seconds(60)
        configuration.compactionBytesPerSecond = 1 << 20
        let metrics = TestMetrics()
        let service = StoreService(store: store, metrics: StoreMetrics(factory: metrics), configuration: configuration, logger: Self.logger)
        try await testGracefulShutdown { trigger in
            async let run: Void = service.run()
            while store.statistics.compactions == 0 { try await Task.sleep(for: .milliseconds(10)) }
            trigger.triggerGracefulShutdown()
            try await run
        }
        #expect(store.statistics.compactions >= 1)
        // What it reclaimed, in how many steps and with what pause, reaches the metrics.
        let base = [("db.system.name", "strata")]
        #expect(try metrics.expectCounter("strata.compaction.reclaimed.bytes", base).totalValue > 0)
        #expect(try metrics.expectCounter("strata.compaction.steps", base).totalValue >= 1)
        #expect(try metrics.expectTimer("strata.compaction.pause", base).lastValue ?? 0 > 0)
    }
}
