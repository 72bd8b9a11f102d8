import Foundation
import Logging
import Strata
import StrataLog
import StrataTestSupport

/// `history STORE SEED`: on a store that tracks history, commits a seeded mix forever,
/// one operation at a time — context saves by an author (inserts, updates, deletes;
/// now and then one large enough to be committed in chunks), batch inserts of both
/// forms, batch deletes — and between them deletes the history before an older token
/// or compacts. Each operation is journalled (`HistoryJournal`) before it starts and
/// after it returned; prints `READY sequence` once open and `ACK n` after each
/// operation. The test kills it with SIGKILL (Tests/StrataTests/Crash/HistoryCrashTests).
struct HistoryCrashWorker {
    var path: String
    var seed: UInt64

    static let author = "history-worker"
    /// How many of the latest commits deleteHistory leaves alone: few enough that a
    /// slow machine's rounds (about 15 commits each) still get past it and delete.
    static let kept: UInt64 = 40
    static let contextName = "history-crash"

    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Item") {
                Attribute("name", .string).preservesValueOnDeletion()
                Attribute("note", .string, optional: true)
                Attribute("value", .int64)
                Attribute("payload", .binary, optional: true, externalStorage: true)
            }
        }
    }

    /// Durable commits on small segments, blob files and overlays, so that rolls and
    /// compactions come often; a save of more than 48 objects is committed in chunks.
    /// Retention keeps everything: history is deleted only by the worker's own
    /// deleteHistory, so that no commit is made that the journal does not name.
    static func options(logger: Logger = CrashWorker.logger()) -> StoreOptions {
        var options = StoreOptions()
        options.historyTracking = true
        options.historyRetention = .unbounded
        options.insertChunkSize = 48
        options.externalStorageThreshold = 1 << 10
        options.log.segmentSizeLimit = 32 << 10
        options.log.blobFileSizeLimit = 128 << 10
        options.log.blockSize = 4 << 10
        options.log.overlayEntryLimit = 64
        options.log.compactionGarbageRatio = 0.05
        options.logger = logger
        return options
    }

    func run() throws -> Never {
        let store = try ObjectStore(at: path, model: Self.model(), options: Self.options())
        let journal = try HistoryJournal.Writer(path: HistoryJournal.path(store: path))
        let opened = store.currentHistoryToken.sequence
        try journal.append(.open(sequence: opened), sync: true)
        var session = Session(store: store, journal: journal, random: SeededRandom(seed: seed, stream: opened, UInt64(getpid())),
                              prefix: "w\(getpid())o\(opened)")
        session.live = try store.newContext().fetch(FetchRequest(entityName: "Item")).map(\.objectID)
        CrashWorker.emit("READY \(opened)")
        var n = 0
        while true {
            try session.step(n)
            CrashWorker.emit("ACK \(n)")
            n += 1
        }
    }

    /// One run's state: the objects it may update or delete, and the names it gave out.
    struct Session {
        let store: ObjectStore
        let journal: HistoryJournal.Writer
        var random: SeededRandom
        /// Makes this run's names and notes unique in the store.
        let prefix: String
        var live: [ObjectID] = []
        var counter = 0

        mutating func unique(_ kind: String) -> String {
            counter += 1
            return "\(prefix)\(kind)\(counter)"
        }

        /// Operation `n`: maintenance at fixed places, so that every run long enough
        /// does some, a seeded choice otherwise.
        mutating func step(_ n: Int) throws {
            if n % 20 == 7 { return try deleteOldHistory() }
            if n % 20 == 15 { return try compact(asObjectStore: n % 40 == 15) }
            // Fewer objects, more inserts; more, more deletes: the store stays small.
            let roll = random.int(in: 0...99) + (live.count < 60 ? -15 : live.count > 250 ? 15 : 0)
            switch roll {
            case ..<55: try save(large: random.chance(4))
            case ..<70: try batchInsert()
            case ..<76: try streamInsert()
            default: try batchDelete()
            }
        }

        /// Runs `body`, journalled: `BEGIN operation` before, `END first last` after,
        /// fsynced. An operation that changes objects must be exactly one commit.
        func journalled(_ operation: HistoryJournal.Operation, _ body: () throws -> [UInt64]) throws {
            try journal.append(.begin(operation))
            let before = store.currentHistoryToken.sequence
            let inserted = try body()
            let after = store.currentHistoryToken.sequence
            if case .maintenance = operation {} else if after != before + 1 {
                throw WorkerFailure("\(HistoryJournal.encode(.begin(operation)).prefix(80)) committed sequences \(before + 1)...\(after), not one")
            }
            try journal.append(.end(first: before + 1, last: after, inserted: inserted), sync: true)
        }

        mutating func save(large: Bool) throws {
            let context = store.newContext()
            context.transactionAuthor = HistoryCrashWorker.author
            context.name = HistoryCrashWorker.contextName
            var changes: [HistoryJournal.Change] = []
            var inserted: [ObjectID] = []
            for _ in 0..<(large ? random.int(in: 60...120) : random.int(in: 0...4)) {
                inserted.append(try insert(into: context, &changes))
            }
            var picked = Set<Int>()
            for _ in 0..<min(live.count / 2, random.int(in: 0...3)) { picked.insert(random.int(in: 0...live.count - 1)) }
            for index in picked.sorted() {
                let object = try context.existingObject(with: live[index])
                let note = unique("u")
                try object.setValue(note, forKey: "note")
                var attributes = ["note"]
                if random.chance(50) {
                    try object.setValue(random.int(in: 0...999), forKey: "value")
                    attributes.append("value")
                }
                changes.append(.update(key: object.objectID.key.rawValue, attributes: attributes, note: note, value: try object.int("value") ?? -1))
            }
            var deleted: [Int] = []
            for _ in 0..<min(live.count / 2, random.int(in: 0...2)) {
                let index = random.int(in: 0...live.count - 1)
                guard !picked.contains(index), !deleted.contains(index) else { continue }
                let object = try context.existingObject(with: live[index])
                changes.append(.delete(key: object.objectID.key.rawValue, name: try object.string("name") ?? ""))
                try context.delete(object)
                deleted.append(index)
            }
            if changes.isEmpty { inserted.append(try insert(into: context, &changes)) }
            try journalled(.save(changes)) {
                try context.save()
                return []
            }
            for index in deleted.sorted(by: >) { live.swapAt(index, live.count - 1); live.removeLast() }
            live += inserted
        }

        mutating func insert(into context: ObjectContext, _ changes: inout [HistoryJournal.Change]) throws -> ObjectID {
            let object = try context.insert("Item")
            let name = unique("n")
            let value = random.int(in: 0...999)
            try object.setValue(name, forKey: "name")
            try object.setValue(value, forKey: "value")
            if random.chance(10) { try object.setValue(payload(), forKey: "payload") }
            changes.append(.insert(key: object.objectID.key.rawValue, name: name, value: value))
            return object.objectID
        }

        /// Above the external-storage threshold: a blob.
        mutating func payload() -> Data {
            Data((0..<random.int(in: 1_100...3_000)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        }

        mutating func batchInsert() throws {
            let objects = (0..<random.int(in: 1...12)).map { _ in HistoryJournal.Named(name: unique("b"), value: random.int(in: 0...999)) }
            let store = store
            var ids: [ObjectID] = []
            try journalled(.insert(objects)) {
                ids = try store.batchInsert(entityName: "Item", objects: objects.map { ["name": .string($0.name), "value": .int(Int64($0.value))] })
                return ids.map(\.key.rawValue)
            }
            live += ids
        }

        /// The handler form, from a handler that yields nothing (no commit, no entry)
        /// to more than a chunk (a chunked commit, its entry with the last chunk).
        mutating func streamInsert(count: Int? = nil) throws {
            let count = count ?? (random.chance(15) ? 0 : random.int(in: 10...120))
            let batch = unique("s")
            let objects = (0..<count).map { HistoryJournal.Named(name: "\(batch)-\($0)", value: random.int(in: 0...999)) }
            let store = store
            var ids: [ObjectID] = []
            try journalled(count == 0 ? .maintenance("empty-insert") : .insert(objects)) {
                var next = 0
                let inserted = try store.batchInsert(entityName: "Item") { values in
                    guard next < objects.count else { return true }
                    values["name"] = .string(objects[next].name)
                    values["value"] = .int(Int64(objects[next].value))
                    next += 1
                    return false
                }
                guard inserted == count else { throw WorkerFailure("the stream insert of \(count) objects inserted \(inserted)") }
                guard count > 0 else { return [] }
                // Held while its objects are read: they belong to it.
                let reader = store.newContext()
                let found = try reader.fetch(FetchRequest(entityName: "Item", predicate: try Predicate(format: "name BEGINSWITH %@", "\(batch)-")))
                var byName: [String: ObjectID] = [:]
                for object in found { byName[try object.string("name") ?? ""] = object.objectID }
                ids = try objects.map { object in
                    guard let id = byName[object.name] else { throw WorkerFailure("the stream insert's \(object.name) is not found") }
                    return id
                }
                return ids.map(\.key.rawValue)
            }
            live += ids
        }

        mutating func batchDelete() throws {
            let low = random.int(in: 0...980)
            let predicate = try Predicate(format: "value >= %@ AND value < %@", low, low + random.int(in: 5...40))
            // What it will delete, read first: nothing else commits meanwhile.
            var changes: [HistoryJournal.Change] = []
            let reader = store.newContext()
            for object in try reader.fetch(FetchRequest(entityName: "Item", predicate: predicate)) {
                changes.append(.delete(key: object.objectID.key.rawValue, name: try object.string("name") ?? ""))
            }
            let store = store
            let expected = changes.count
            try journalled(changes.isEmpty ? .maintenance("empty-delete") : .delete(changes)) {
                let removed = try store.batchDelete(entityName: "Item", predicate: predicate)
                guard removed == expected else { throw WorkerFailure("the batch delete removed \(removed) objects, not the \(expected) it matched") }
                return []
            }
            let gone = Set(changes.map(\.key))
            live.removeAll { gone.contains($0.key.rawValue) }
        }

        /// Deletes the history before a token between the horizon and the last
        /// `HistoryCrashWorker.kept` commits: the entries of the latest commits stay for
        /// the test to see, a stray one among them included.
        mutating func deleteOldHistory() throws {
            guard let horizon = try store.historyHorizon() else { throw WorkerFailure("the store does not track history") }
            let last = store.currentHistoryToken.sequence
            let end = max(horizon.sequence, last > HistoryCrashWorker.kept ? last - HistoryCrashWorker.kept : 0)
            let sequence = horizon.sequence + UInt64(random.int(in: 0...Int(end - horizon.sequence)))
            let store = store
            try journalled(.maintenance("delete-history")) {
                try store.deleteHistory(before: HistoryToken(sequence: sequence, storeIdentifier: store.identifier))
                return []
            }
        }

        /// The object store's compaction (history trimmed first, then the engine's
        /// pass), or the engine's alone.
        mutating func compact(asObjectStore: Bool) throws {
            let store = store
            try journalled(.maintenance(asObjectStore ? "compact" : "compact-engine")) {
                if asObjectStore {
                    try Self.wait { _ = try await store.compact(force: true) }
                } else {
                    try store.records.compact(force: true)
                }
                return []
            }
        }

        /// Runs async work to its end from this synchronous loop (on the main thread,
        /// which no task needs).
        static func wait(_ body: @escaping @Sendable () async throws -> Void) throws {
            let outcome = Locked<(any Error)??>(nil)
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                do {
                    try await body()
                    outcome.withLock { $0 = .some(nil) }
                } catch {
                    outcome.withLock { $0 = .some(error) }
                }
                done.signal()
            }
            done.wait()
            if let error = outcome.withLock({ $0 }) ?? nil { throw error }
        }
    }
}
