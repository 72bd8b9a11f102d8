import Foundation
import Logging
import MetricsTestKit
import ServiceLifecycle
import ServiceLifecycleTestKit
import Strata
import StrataLog
@testable import StrataService
import StrataTestSupport
import Synchronization
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

    /// The operations a service calls outside `read` and `write`: a context's fetch and
    /// save, a compaction, a backup, each timed under its own name.
    @Test func fetchesSavesCompactionsAndBackupsAreTimed() async throws {
        let dir = try TemporaryDirectory("service-metrics")
        defer { dir.remove() }
        let metrics = TestMetrics()
        let store = try await ObjectStore.open(at: dir.path + "/store", model: try Self.model())
        let service = StoreService(store: store, metrics: StoreMetrics(factory: metrics), logger: Self.logger)
        defer { try? store.close() }
        let context = store.newContext()
        try context.insert("Todo").setValue("Timed", forKey: "title")
        try context.save()
        #expect(try context.fetch(FetchRequest(entityName: "Todo")).count == 1)
        try await store.compact(force: true)
        _ = try await store.backup(to: dir.path + "/backup")
        let base = [("db.system.name", "strata")]
        for operation in ["save", "fetch", "compact", "backup"] {
            let timer = try metrics.expectTimer("db.client.operation.duration", base + [("db.operation.name", operation)])
            #expect(timer.values.count == 1, "\(operation) timed once")
        }
        service.metrics.sample(store)
        #expect(try metrics.expectGauge("strata.store.live.bytes", base).lastValue ?? 0 > 0)
    }

    /// A write refused past `maxPendingWrites` is a failed write in the metrics, with
    /// its code, as a service's 503 for it is.
    @Test func aWriteRefusedPastTheLimitIsCountedAsAFailedWrite() async throws {
        var options = StoreOptions()
        options.maxPendingWrites = 1
        let store = try ObjectStore.inMemory(model: try Self.model(), options: options)
        let metrics = TestMetrics()
        _ = StoreService(store: store, metrics: StoreMetrics(factory: metrics), logger: Self.logger)
        let gate = DispatchSemaphore(value: 0)
        let started = Mutex(false)
        async let first: Void = store.write { _ in started.withLock { $0 = true }; gate.wait() }
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        await #expect {
            try await store.write { _ in }
        } throws: { ($0 as? StrataError)?.code == .limitExceeded }
        gate.signal()
        try await first
        let refused = [("db.system.name", "strata"), ("db.operation.name", "write"), ("error.type", "limitExceeded")]
        #expect(try metrics.expectCounter("strata.errors", refused).totalValue == 1)
        #expect(try metrics.expectTimer("db.client.operation.duration", refused).values.count == 1)
        try await store.close()
    }

    @Test func aMigrationIsTimedAndAFailedOneCounted() async throws {
        let dir = try TemporaryDirectory("service-migrate")
        defer { dir.remove() }
        let path = dir.appending("todos.strata")
        let old = try Self.model()
        let seed = try ObjectStore(at: path, model: old)
        try await seed.write { context in try context.insert("Todo").setValue("Keep", forKey: "title") }
        try await seed.close()
        // A new required attribute with no default: the inferred migration cannot fill it.
        let strict = try ObjectModel(version: "2") {
            Entity("Todo") {
                Attribute("title", .string)
                Attribute("completed", .bool, default: .bool(false))
                Attribute("owner", .string)
            }
        }
        var options = StoreOptions()
        options.migration = .inferred
        let metrics = TestMetrics()
        await #expect(throws: StrataError.self) {
            _ = try await StoreService.open(at: path, model: strict, options: options, metrics: StoreMetrics(factory: metrics), logger: Self.logger)
        }
        let base = [("db.system.name", "strata")]
        // Timed with its error's type, as OpenTelemetry's duration of a failed operation is.
        let timed = metrics.timers.filter { $0.label == "db.client.operation.duration" && $0.dimensions.contains { $0 == ("db.operation.name", "migrate") } }
        #expect(timed.map(\.values.count).reduce(0, +) == 1)
        #expect(timed.filter { !$0.values.isEmpty }.allSatisfy { $0.dimensions.contains { $0.0 == "error.type" } })
        let failed = metrics.counters.filter { $0.label == "strata.errors" && $0.dimensions.contains { $0 == ("db.operation.name", "migrate") } }
        #expect(failed.map(\.totalValue).reduce(0, +) == 1, "\(failed.map(\.dimensions))")

        // With a default the same migration succeeds, and is timed, with no error.
        let lenient = try ObjectModel(version: "3") {
            Entity("Todo") {
                Attribute("title", .string)
                Attribute("completed", .bool, default: .bool(false))
                Attribute("owner", .string, default: .string("nobody"))
            }
        }
        options.migration = .inferred
        let passing = TestMetrics()
        let service = try await StoreService.open(at: path, model: lenient, options: options, metrics: StoreMetrics(factory: passing), logger: Self.logger)
        try await service.store.close()
        #expect(try passing.expectTimer("db.client.operation.duration", base + [("db.operation.name", "migrate")]).values.count == 1)
        #expect(!passing.counters.contains { $0.label == "strata.errors" })
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

    /// A store in small segments whose one object was written 400 times: almost every
    /// byte is a superseded version.
    static func storeMostlyGarbage() async throws -> ObjectStore {
        var options = StoreOptions()
        options.log.segmentSizeLimit = 16 << 10
        let store = try ObjectStore.inMemory(model: try Self.model(), options: options)
        let id = try await store.write { context in
            let todo = try context.insert("Todo")
            try todo.setValue("First", forKey: "title")
            return todo.objectID
        }
        for i in 0 ..< 400 {
            try await store.write { try $0.existingObject(with: id).setValue(String(repeating: "x", count: 64) + "\(i)", forKey: "title") }
        }
        return store
    }

    /// The policy: garbage at or past the ratio, no compaction within the minimum
    /// interval of the last one unless that one found nothing and garbage has grown
    /// since, none with the ratio off or on a store that cannot write.
    @Test func thePolicyComparesTheGarbageRatioAndTheIntervalSinceTheLastCompaction() async throws {
        let store = try await Self.storeMostlyGarbage()
        let garbage = store.records.usage.garbageRatio
        #expect(garbage > 0.5)
        func service(ratio: Double?, interval: Duration = .seconds(600)) -> StoreService {
            var configuration = StoreService.Configuration()
            configuration.compactionGarbageRatio = ratio
            configuration.compactionMinimumInterval = interval
            return StoreService(store: store, metrics: StoreMetrics(factory: TestMetrics()), configuration: configuration, logger: Self.logger)
        }
        #expect(service(ratio: 0.5).shouldCompact(.init(lastPass: nil)))
        #expect(service(ratio: garbage).shouldCompact(.init(lastPass: nil)), "at the ratio")
        #expect(!service(ratio: min(1, garbage + 0.01)).shouldCompact(.init(lastPass: nil)), "below the ratio")
        #expect(!service(ratio: nil).shouldCompact(.init(lastPass: nil)), "the policy off")
        #expect(!service(ratio: 0.5).shouldCompact(.init(lastPass: .now - .seconds(300))), "within the interval")
        #expect(service(ratio: 0.5).shouldCompact(.init(lastPass: .now - .seconds(900))), "past it")
        #expect(service(ratio: 0.5, interval: .zero).shouldCompact(.init(lastPass: .now)))
        // After a pass that found nothing to rewrite, the next waits for the garbage
        // to grow, or for the interval.
        #expect(!service(ratio: 0.5).shouldCompact(.init(lastPass: .now, emptyPassRatio: garbage)), "no more garbage since")
        #expect(service(ratio: 0.5).shouldCompact(.init(lastPass: .now, emptyPassRatio: garbage - StoreService.emptyPassRise - 0.001)), "grown since")
        #expect(service(ratio: 0.5).shouldCompact(.init(lastPass: .now - .seconds(900), emptyPassRatio: garbage)), "past the interval")

        let fresh = try ObjectStore.inMemory(model: try Self.model())
        try await fresh.write { context in try context.insert("Todo").setValue("only", forKey: "title") }
        let idle = StoreService(store: fresh, metrics: StoreMetrics(factory: TestMetrics()), configuration: StoreService.Configuration(), logger: Self.logger)
        #expect(!idle.shouldCompact(.init(lastPass: nil)), "a store without superseded versions")
        try await fresh.close()

        try await store.close()
        #expect(!service(ratio: 0.5).shouldCompact(.init(lastPass: nil)), "a closed store")
    }

    /// A pass compacts what it finds (here the active segment's garbage too, where a
    /// single object written over and over leaves it); one that finds nothing to
    /// rewrite reports so (the policy then waits for garbage to grow, above).
    @Test func aPassThatFindsNothingToRewriteDoesNotCount() async throws {
        let store = try await Self.storeMostlyGarbage()
        let service = StoreService(store: store, metrics: StoreMetrics(factory: TestMetrics()), logger: Self.logger)
        #expect(await service.compact(), "superseded versions to reclaim")
        #expect(store.records.usage.garbageRatio < 0.1, "\(store.records.usage)")
        #expect(await service.compact() == false, "nothing left to rewrite")
        try await store.close()
    }

    /// A lightweight migration in place leaves records in the older layout: the policy
    /// compacts for them with no garbage at all, and not again once they are rewritten.
    @Test func thePolicyCompactsForRecordsOfAnOlderLayout() async throws {
        let dir = try TemporaryDirectory("service-layouts")
        defer { dir.remove() }
        let path = dir.path + "/store"
        let v0 = try ObjectModel(version: "0") { Entity("Todo") { Attribute("title", .string) } }
        let old = try await ObjectStore.open(at: path, model: v0)
        try await old.write { context in
            for i in 0 ..< 20 { try context.insert("Todo").setValue("T\(i)", forKey: "title") }
        }
        try await old.close()

        var options = StoreOptions()
        options.migration = .inferred
        let store = try await ObjectStore.open(at: path, model: try Self.model(), options: options)
        let service = StoreService(store: store, metrics: StoreMetrics(factory: TestMetrics()), logger: Self.logger)
        #expect(store.records.usage.garbageRatio < 0.3)
        #expect(store.awaitsLayoutRewrite)
        #expect(service.shouldCompact(.init(lastPass: nil)), "older-layout records to rewrite")
        try await store.compact()
        #expect(!store.awaitsLayoutRewrite, "every record is in the current layout")
        #expect(!service.shouldCompact(.init(lastPass: nil)))
        let titles = try await store.read { context in
            try context.fetch(FetchRequest(entityName: "Todo", sortKeys: [SortKey("title")])).map { try $0.string("title") ?? "" }
        }
        #expect(titles.count == 20)
        try await store.close()
    }

    @Test func compactsWhenGarbagePassesThePolicy() async throws {
        let store = try await Self.storeMostlyGarbage()
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

    /// A compaction at its rate cap may run for minutes: the gauges go on being sampled
    /// meanwhile, rather than waiting for it to end.
    @Test func gaugesAreSampledWhileACompactionRuns() async throws {
        let store = try await Self.storeMostlyGarbage()
        var configuration = StoreService.Configuration()
        configuration.checkInterval = .milliseconds(10)
        configuration.compactionMinimumInterval = .seconds(60)
        // Slow enough that the compaction outlasts the test: its pass would take about
        // an hour.
        configuration.compactionBytesPerSecond = 16
        let metrics = TestMetrics()
        let service = StoreService(store: store, metrics: StoreMetrics(factory: metrics), configuration: configuration, logger: Self.logger)
        let base = [("db.system.name", "strata")]
        try await testGracefulShutdown { trigger in
            async let run: Void = service.run()
            try await Task.sleep(for: .milliseconds(100))
            let during = try metrics.expectGauge("strata.store.size", base).values.count
            // Five more samples while the compaction runs, within this task's next 500
            // looks: counted rather than timed, because the sampler and this task share a
            // pool that other tests may hold for minutes, which stalls both alike.
            var later = during
            var looks = 0
            while later - during < 5 && looks < 500 {
                try await Task.sleep(for: .milliseconds(20))
                looks += 1
                later = try metrics.expectGauge("strata.store.size", base).values.count
            }
            #expect(store.statistics.compactions == 0, "the compaction is still under way")
            #expect(later - during >= 5, "\(later - during) samples during the compaction")
            // The shutdown stops the compaction rather than waiting out its pass.
            let shutdown = ContinuousClock.now
            trigger.triggerGracefulShutdown()
            try await run
            // Far less than the pass's hour, and loose otherwise: the stop reaches the
            // compaction through tasks on a pool other tests may hold for minutes, and its
            // thread runs at a lower priority.
            #expect(ContinuousClock.now - shutdown < .seconds(1_200))
        }
        #expect(store.health.state == .closed)
    }
}
