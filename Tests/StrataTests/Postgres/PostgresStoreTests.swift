import Foundation
import Strata
import StrataLog
import StrataTestSupport
import Testing
@testable import StrataCrashWorker
#if Postgres
import StrataPostgres
#endif

/// What only the PostgreSQL store type promises: several processes writing one store
/// lose no update, share no id and let one object win a unique value; a commit is
/// seen by the other processes; a killed client leaves nothing of its transaction.
/// These run in `make test`'s PostgreSQL pass (STRATA_TEST_POSTGRES).
@Suite(.enabled(if: StoreUnderTest.isPostgres, "needs a PostgreSQL server (STRATA_TEST_POSTGRES)"), .serialized)
struct PostgresStoreTests {
    /// A fresh store's location, and the race model's store created there.
    private func freshStore(history: Bool = false) throws -> (String, ObjectStore) {
        let location = StoreUnderTest.location(for: "race-" + UUID().uuidString)
        let store = try StoreUnderTest.openLocation(location, model: try PostgresRaceWorker.model(), history: history)
        return (location, store)
    }

    private func run(_ mode: String, _ location: String, _ count: Int, processes: Int) throws -> [MigrationCrashProcess.Outcome] {
        let children = try (0..<processes).map { _ in try MigrationCrashProcess(command: mode, store: location, seed: UInt64(count)) }
        let outcomes = children.map { $0.waitAndCollect() }
        for outcome in outcomes { #expect(outcome.exitedCleanly, "\(outcome.termination): \(outcome.stderr)") }
        return outcomes
    }

    @Test func concurrentIncrementsFromTwoProcessesLoseNone() throws {
        let (location, store) = try freshStore()
        defer { try? store.close() }
        let context = store.newContext()
        let counter = try context.insert("Counter")
        try counter.setValue("hits", forKey: "name")
        try context.save()
        let perContext = StoreUnderTest.raceCount
        let outcomes = try run("increment", location, perContext, processes: 2)
        let conflicts = outcomes.flatMap(\.lines).compactMap { $0.hasPrefix("conflicts ") ? Int($0.dropFirst(10)) : nil }.reduce(0, +)
        let reader = store.newContext()
        let value = try reader.fetch(FetchRequest(entityName: "Counter")).first?.value(forKey: "value")
        #expect(value == .int(Int64(2 * 8 * perContext)), "conflicts retried: \(conflicts)")
        print("PostgreSQL races: 2 processes × 8 contexts × \(perContext) increments → \(String(describing: value)), \(conflicts) conflicts retried")
    }

    @Test func insertsFromFourProcessesGetDistinctIDs() throws {
        let (location, store) = try freshStore()
        defer { try? store.close() }
        let perProcess = StoreUnderTest.raceCount * 10
        let outcomes = try run("insert", location, perProcess, processes: 4)
        let ids = outcomes.flatMap(\.lines).filter { $0.hasPrefix("strata://") }
        #expect(ids.count == 4 * perProcess)
        #expect(Set(ids).count == ids.count, "an id was given out twice")
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Item")) == 4 * perProcess)
    }

    @Test func racesForOneUniqueValueHaveOneWinnerEach() throws {
        let (location, store) = try freshStore()
        defer { try? store.close() }
        let rounds = StoreUnderTest.raceCount
        let outcomes = try run("unique", location, rounds, processes: 2)
        let wins = outcomes.flatMap(\.lines).compactMap { $0.hasPrefix("won ") ? Int($0.dropFirst(4)) : nil }
        #expect(wins.count == rounds, "every round has one winner, none two")
        #expect(Set(wins) == Set(0..<rounds))
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Item")) == rounds)
    }

    /// Instances of a service started at once against a store that does not exist yet:
    /// one creates the tables, every other open waits for it and opens the same store.
    @Test func opensRacingToCreateOneStoreAllOpenIt() throws {
        let location = StoreUnderTest.location(for: "create-race-" + UUID().uuidString)
        let model = try PostgresRaceWorker.model()
        let opened = Locked<[Result<ObjectStore, any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            let result = Result { try StoreUnderTest.openLocation(location, model: model) }
            opened.withLock { $0.append(result) }
        }
        let results = opened.withLock { $0 }
        let stores = results.compactMap { try? $0.get() }
        defer { for store in stores { try? store.close() } }
        for result in results { _ = try result.get() }
        let context = stores[0].newContext()
        let item = try context.insert("Item")
        try item.setValue("first", forKey: "name")
        try context.save()
        for store in stores {
            #expect(try store.newContext().count(for: FetchRequest(entityName: "Item")) == 1, "every open is of the one store")
            #expect(store.segmentLog == nil, "no segment log under a PostgreSQL store")
        }
    }

    @Test func aClientKilledInALargeCommitLeavesNoneOfIt() throws {
        let (location, store) = try freshStore()
        defer { try? store.close() }
        let child = try MigrationCrashProcess(command: "commit", store: location, seed: 100_000)
        let deadline = ContinuousClock.now + .seconds(60)
        while !child.stdout.lines.contains("saving") && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.5))
        let outcome = child.killAndCollect()
        let saved = outcome.lines.contains("saved")
        // The server rolls the transaction back when the connection goes.
        Thread.sleep(forTimeInterval: 0.2)
        let count = try store.newContext().count(for: FetchRequest(entityName: "Item"))
        #expect(count == (saved ? 100_000 : 0), "\(outcome.termination), saved: \(saved)")
    }

    /// A migration that rewrites the store into a staging schema, killed at a random
    /// moment: unless its swap (one transaction) committed, the old model reads every
    /// object as before; the next migration drops what the killed one left and
    /// completes.
    @Test func aKilledRewritingMigrationLeavesTheOldModelReadable() throws {
        let (location, store) = try freshStore()
        let items = StoreUnderTest.raceCount * 50
        _ = try store.batchInsert(entityName: "Item", objects: (0..<items).map { ["name": .string("item-\($0)")] })
        try store.close()
        let names = Set((0..<items).map { "item-\($0)" })

        let child = try MigrationCrashProcess(command: "rewrite", store: location, seed: 500)
        let deadline = ContinuousClock.now + .seconds(60)
        while !child.stdout.lines.contains("migrating") && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.5))
        let outcome = child.killAndCollect()
        let migrated = outcome.lines.contains("migrated")
        Thread.sleep(forTimeInterval: 0.2)  // the server ends the killed connection's transaction
        let leftovers = try StoreUnderTest.stagingSchemas(location)
        print("PostgreSQL rewrite killed \(migrated ? "after its swap" : "before its swap"), staging schemas left: \(leftovers.count)")

        if !migrated {
            let old = try StoreUnderTest.openLocation(location, model: try PostgresRaceWorker.model())
            let reader = old.newContext()
            let read = try reader.fetch(FetchRequest(entityName: "Item")).map { try $0.string("name") ?? "" }
            #expect(Set(read) == names && read.count == items, "the old model reads every item")
            #expect(try old.verify().isSound)
            try old.close()
        }
        var options = try PostgresRaceWorker.rewriteOptions(batchSize: 1_000)
        options.storeType = .postgres
        let started = ContinuousClock.now
        let again = try ObjectStore(at: location, model: try PostgresRaceWorker.rewrittenModel(), options: options)
        defer { try? again.close() }
        print("PostgreSQL rewrite of \(items) objects: \(ContinuousClock.now - started)")
        let reader = again.newContext()
        let read = try reader.fetch(FetchRequest(entityName: "Item"))
        #expect(Set(try read.map { try $0.string("name") ?? "" }) == names && read.count == items)
        #expect(try read.allSatisfy { try $0.value(forKey: "note") == .null })
        #expect(try StoreUnderTest.stagingSchemas(location).isEmpty, "the migration dropped the killed one's staging schema")
        #expect(try again.verify().isSound)
    }

    #if Postgres
    /// A swap never drops a commit: a store that took another process's commit after
    /// its staging store began refuses to swap it in, and keeps that commit.
    @Test func aSwapIsRefusedWhenTheStoreMovedDuringTheRewrite() throws {
        let (location, store) = try freshStore()
        try store.close()
        let root = try PostgresRecordStore(location: location)
        defer { try? root.close() }
        let staging = try root.stagingStore(overlayEntryLimit: nil)
        var batch = WriteBatch()
        batch.put(RecordKey(0x7F00 << 48 | 1), value: [1, 2, 3])
        // Another process's commit (another connection to the store) while the rewrite
        // runs; this process's own would move the swap's baseline with it.
        let other = try PostgresRecordStore(location: location)
        let sequence = try other.commit(batch)
        try other.close()
        let error = #expect(throws: StrataError.self) { try root.adopt(staging: staging) }
        #expect(error?.code == .migrationFailed, "\(String(describing: error))")
        #expect(try root.get(RecordKey(0x7F00 << 48 | 1))?.sequence == sequence)
        root.discardStagingStores()
        #expect(try StoreUnderTest.stagingSchemas(location).isEmpty)
    }
    #endif

    /// SwiftData's de-duplicate-then-migrate pattern: `willMigrate` saves into the old
    /// store (its commit is this migration's own, so the swap still goes ahead), and
    /// the new model's unique rule holds after it.
    @Test func aWillMigrateHookThatSavesIsPartOfTheRewrite() throws {
        let (location, store) = try freshStore()
        let (old, new) = (try PostgresRaceWorker.model(), try PostgresRaceWorker.rewrittenModel())
        _ = try store.batchInsert(entityName: "Item", objects: (0..<50).map { ["name": .string("item-\($0)")] })
        try store.close()
        var options = StoreOptions()
        options.storeType = .postgres
        options.migration = .plan(MigrationPlan(models: [old, new], stages: [
            .custom(from: old, to: new, willMigrate: { context in
                for item in try context.fetch(FetchRequest(entityName: "Item")) where try item.string("name")?.hasSuffix("7") == true {
                    try context.delete(item)
                }
                try context.save()
                return MigrationCarry()
            }, didMigrate: nil),
        ]))
        let migrated = try ObjectStore(at: location, model: new, options: options)
        defer { try? migrated.close() }
        let reader = migrated.newContext()
        let names = try reader.fetch(FetchRequest(entityName: "Item")).map { try $0.string("name") ?? "" }
        #expect(names.count == 45 && !names.contains { $0.hasSuffix("7") })
        #expect(try StoreUnderTest.stagingSchemas(location).isEmpty)
    }

    /// A process still on the old model after another rewrote the store is refused at
    /// its next save, rather than writing records of a model the store no longer has,
    /// and at its next read of a record, rather than decoding it with the wrong layout.
    @Test func aProcessOnTheOldModelIsRefusedAfterAnotherMigratesTheStore() throws {
        let (location, old) = try freshStore()
        defer { try? old.close() }
        let context = old.newContext()
        try context.insert("Item").setValue("before", forKey: "name")
        try context.save()

        var options = try PostgresRaceWorker.rewriteOptions(batchSize: 100)
        options.storeType = .postgres
        let migrated = try ObjectStore(at: location, model: try PostgresRaceWorker.rewrittenModel(), options: options)
        defer { try? migrated.close() }
        let editor = migrated.newContext()
        let note = try #require(try editor.fetch(FetchRequest(entityName: "Item")).first)
        try note.setValue("kept", forKey: "note")
        try editor.save()

        let stale = old.newContext()
        try stale.insert("Item").setValue("after", forKey: "name")
        let error = #expect(throws: StrataError.self) { try stale.save() }
        #expect(error?.code == .incompatibleModel, "\(String(describing: error))")
        // Its reads are refused too: the records are of layouts it does not have.
        let staleReader = old.newContext()
        let readError = #expect(throws: StrataError.self) {
            try staleReader.fetch(FetchRequest(entityName: "Item")).map { try $0.string("name") }
        }
        #expect(readError?.code == .incompatibleModel, "\(String(describing: readError))")
        let reader = migrated.newContext()
        let items = try reader.fetch(FetchRequest(entityName: "Item"))
        #expect(try items.map { try $0.string("name") } == ["before"])
        #expect(try items.first?.string("note") == "kept")
    }

    @Test func anotherProcessSeesACommitAndAfterADroppedConnectionEveryMissedOne() async throws {
        let (location, writer) = try freshStore(history: true)
        defer { try? writer.close() }
        let reader = try StoreUnderTest.openLocation(location, model: try PostgresRaceWorker.model(), history: true)
        defer { try? reader.close() }
        let start = reader.currentHistoryToken
        let arrived = Locked<[(Int, ContinuousClock.Instant)]>([])
        let feed = Task {
            var seen = 0
            for try await transaction in reader.changes(after: start) {
                seen += transaction.changes.count
                arrived.withLock { $0.append((seen, .now)) }
                if seen >= 60 { return }
            }
        }
        // 40 commits a few milliseconds apart, each timed to its arrival.
        var committed: [ContinuousClock.Instant] = []
        for i in 0..<40 {
            let context = writer.newContext()
            try context.insert("Item").setValue(.string("seen-\(i)"), forKey: "name")
            try context.save()
            committed.append(.now)
            try await Task.sleep(for: .milliseconds(5))
        }
        // Every listening connection is cut; 20 commits land while they reconnect.
        try StoreUnderTest.terminateListeners(location)
        for i in 0..<20 {
            let context = writer.newContext()
            try context.insert("Item").setValue(.string("missed-\(i)"), forKey: "name")
            try context.save()
        }
        // A thousand looks of 20 ms: counted rather than timed, because the feed and this
        // task share a pool that other tests may hold for minutes, which stalls both alike.
        var looks = 0
        while arrived.withLock({ $0.last?.0 ?? 0 }) < 60 && looks < 1_000 {
            try await Task.sleep(for: .milliseconds(20))
            looks += 1
        }
        feed.cancel()
        let times = arrived.withLock { $0 }
        #expect(times.last?.0 == 60, "every change arrives once: \(times.map(\.0))")
        var delays: [Duration] = []
        for (seen, at) in times where seen <= 40 { delays.append(at - committed[seen - 1]) }
        delays.sort()
        if !delays.isEmpty {
            print("PostgreSQL feed: a commit seen by another store after median \(delays[delays.count / 2]), max \(delays.last!) over \(delays.count) deliveries")
        }
    }

    @Test func strataCopyMovesAStoreOntoTheServerAndBackWithItsBlobs() throws {
        let model = try ObjectModel(version: "copy-1") {
            Entity("Photo") {
                Attribute("name", .string)
                Attribute("bytes", .binary, optional: true, externalStorage: true)
            }
        }
        let directory = try TemporaryDirectory("pg-copy")
        defer { directory.remove() }
        let source = directory.appending("source.strata"), back = directory.appending("back.strata")
        let store = try ObjectStore(at: source, model: model)
        let context = store.newContext()
        for i in 0..<50 {
            let photo = try context.insert("Photo")
            try photo.setValue(.string("p\(i)"), forKey: "name")
            try photo.setValue(.binary(Data(repeating: UInt8(i), count: 10_000 + i)), forKey: "bytes")
        }
        try context.save()
        try store.close()

        let location = StoreUnderTest.location(for: "copy-" + UUID().uuidString)
        let strata = try BuiltProduct.url(named: "strata", overrideVariable: "STRATA_CLI")
        for (from, to) in [(source, location), (location, back)] {
            let process = Process()
            process.executableURL = strata
            process.arguments = ["copy", from, to]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(text)")
            #expect(text.contains("copied 50 records and 50 blobs"), "\(text)")
        }
        for copy in [try StoreUnderTest.openLocation(location, model: model), try ObjectStore(at: back, model: model)] {
            defer { try? copy.close() }
            let reader = copy.newContext()
            let photos = try reader.fetch(FetchRequest(entityName: "Photo", sortKeys: [SortKey("name")]))
            #expect(photos.count == 50)
            for photo in photos {
                guard case .string(let name) = try photo.value(forKey: "name"), let i = Int(name.dropFirst()) else { continue }
                #expect(try photo.value(forKey: "bytes") == .binary(Data(repeating: UInt8(i), count: 10_000 + i)))
            }
            #expect(try copy.verify().isSound)
        }
    }

    /// A schema of the longest name a location takes migrates through its staging
    /// schema (a longer name, whose channel must be shortened to be one at all), and
    /// its commits still reach another process's feed.
    @Test func aStoreOfTheLongestSchemaNameMigratesAndAnnouncesItsCommits() async throws {
        let schema = "l" + String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)) + String(repeating: "x", count: 29)
        #expect(schema.utf8.count == 50)
        let location = StoreUnderTest.location(StoreUnderTest.postgres ?? "", schema: schema)
        let store = try StoreUnderTest.openLocation(location, model: try PostgresRaceWorker.model())
        _ = try store.batchInsert(entityName: "Item", objects: (0..<20).map { ["name": .string("item-\($0)")] })
        try await store.close()

        var options = try PostgresRaceWorker.rewriteOptions(batchSize: 8)
        options.storeType = .postgres
        options.historyTracking = true
        let migrated = try ObjectStore(at: location, model: try PostgresRaceWorker.rewrittenModel(), options: options)
        defer { try? migrated.close() }
        #expect(try migrated.newContext().count(for: FetchRequest(entityName: "Item")) == 20)
        #expect(try StoreUnderTest.stagingSchemas(location).isEmpty)

        let reader = try ObjectStore(at: location, model: try PostgresRaceWorker.rewrittenModel(), options: options)
        defer { try? reader.close() }
        let start = reader.currentHistoryToken
        let feed = Task {
            for try await transaction in reader.changes(after: start) where !transaction.changes.isEmpty { return true }
            return false
        }
        let context = migrated.newContext()
        try context.insert("Item").setValue(.string("announced"), forKey: "name")
        try context.save()
        // Twenty seconds of the timeout's own time, a second at a time: it and the feed
        // share a pool that other tests may hold for minutes, which stalls both alike.
        let timeout = Task {
            for _ in 0 ..< 20 { try await Task.sleep(for: .seconds(1)) }
            feed.cancel()
        }
        #expect(try await feed.value, "the reader's feed hears the commit")
        timeout.cancel()
    }

    /// Reads under way when the store closes hand their connections back to a closed
    /// pool: they are closed, not kept open until the process ends.
    @Test func aStoreClosedDuringReadsLeavesNoConnectionOpen() throws {
        #if Postgres
        let schema = "c" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let location = StoreUnderTest.location(StoreUnderTest.postgres ?? "", schema: schema)
        let store = try PostgresRecordStore(location: location, readOnly: false)
        var batch = WriteBatch()
        for key in 1...100 as ClosedRange<UInt64> { batch.put(RecordKey(key), value: Array("v\(key)".utf8)) }
        try store.commit(batch)
        let reads = Locked(0)
        let readers = (0..<4).map { n in
            Thread {
                var key: UInt64 = 1
                while (try? store.get(RecordKey(key))) != nil {
                    reads.withLock { $0 += 1 }
                    key = key % 100 + 1
                }
            }
        }
        for reader in readers { reader.start() }
        let deadline = ContinuousClock.now + .seconds(20)
        while reads.withLock({ $0 }) < 200 && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(reads.withLock { $0 } >= 200, "the readers read before the close")
        try store.close()
        while readers.contains(where: { !$0.isFinished }) { Thread.sleep(forTimeInterval: 0.01) }
        let observer = try PostgresRecordStore(location: StoreUnderTest.location(StoreUnderTest.postgres ?? "", schema: "o" + schema.dropFirst()),
                                               readOnly: false)
        defer { try? observer.close() }
        // A closed connection leaves pg_stat_activity once its backend exits.
        var open = try observer.connectionCount(touching: schema)
        for _ in 0..<50 where open > 0 {
            Thread.sleep(forTimeInterval: 0.02)
            open = try observer.connectionCount(touching: schema)
        }
        #expect(open == 0, "connections left open on the closed store's schema")
        #endif
    }
}
