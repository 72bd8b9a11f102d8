import Foundation
import Strata
import StrataLog
#if Postgres
import StrataPostgres
#endif

/// The child processes of the PostgreSQL race tests (Tests/StrataTests/Postgres): each
/// races other processes on one store and prints what it did, for the test to total.
///
/// - `increment LOCATION N`: 8 contexts on 8 threads each add 1 to the one counter N
///   times, retrying a `.conflict` with fresh values; prints `conflicts C`.
/// - `insert LOCATION N`: inserts N items, one save per 100; prints each new serial.
/// - `unique LOCATION N`: N rounds, each trying to insert the name `round-I`; prints
///   `won I` for each round whose insert saved.
/// - `commit LOCATION N`: one save of N items; prints `saving` before it (the test
///   kills the process while the save runs).
/// - `rewrite LOCATION N`: opens the store with ``rewrittenModel()``, migrating it by
///   a mapping (a rewrite into a staging schema) in batches of N; prints `migrating`
///   before and `migrated` after (the test kills the process in between).
struct PostgresRaceWorker {
    let mode: String
    let location: String
    let count: Int

    static func model() throws -> ObjectModel {
        try ObjectModel(version: "race-1") {
            Entity("Counter") {
                Attribute("name", .string, unique: true)
                Attribute("value", .int64, default: .int(0))
            }
            Entity("Item") {
                Attribute("name", .string, unique: true)
            }
        }
    }

    /// ``model()`` with an optional `note` on Item: reached by a mapping, which
    /// rewrites the store rather than changing it in place.
    static func rewrittenModel() throws -> ObjectModel {
        try ObjectModel(version: "race-2") {
            Entity("Counter") {
                Attribute("name", .string, unique: true)
                Attribute("value", .int64, default: .int(0))
            }
            Entity("Item") {
                Attribute("name", .string, unique: true)
                Attribute("note", .string, optional: true)
            }
        }
    }

    /// Options that migrate a store of ``model()`` to ``rewrittenModel()`` by a
    /// mapping, in batches of `batchSize`.
    static func rewriteOptions(batchSize: Int) throws -> StoreOptions {
        var options = StoreOptions()
        let (old, new) = (try model(), try rewrittenModel())
        options.migration = .mappings([try MappingModel.inferred(from: old, to: new)], models: [new])
        options.migrationBatchSize = batchSize
        return options
    }

    func run() throws {
        #if Postgres
        if mode == "rewrite" { return try rewrite() }
        var options = StoreOptions()
        options.storeType = .postgres
        let store = try ObjectStore(at: location, model: try Self.model(), options: options)
        defer { try? store.close() }
        switch mode {
        case "increment": try increment(store)
        case "insert": try insert(store)
        case "unique": try unique(store)
        case "commit": try commit(store)
        default: throw StrataError(.invalidArgument, "unknown race mode \(mode)")
        }
        #else
        throw StrataError(.invalidArgument, "built without the Postgres trait")
        #endif
    }

    private func increment(_ store: ObjectStore) throws {
        let conflicts = Locked(0)
        let failure = Locked<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do {
                let context = store.newContext()
                var done = 0
                while done < count {
                    let counter = try context.fetch(FetchRequest(entityName: "Counter", predicate: try Predicate(format: "name == %@", "hits"))).first!
                    guard case .int(let value) = try counter.value(forKey: "value") else { throw StrataError(.typeMismatch, "the counter is not an integer") }
                    try counter.setValue(.int(value + 1), forKey: "value")
                    do {
                        try context.save()
                        done += 1
                    } catch let error as StrataError where error.code == .conflict {
                        conflicts.withLock { $0 += 1 }
                        context.reset()
                    }
                }
            } catch {
                failure.withLock { $0 = error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        CrashWorker.emit("conflicts \(conflicts.withLock { $0 })")
    }

    private func insert(_ store: ObjectStore) throws {
        let context = store.newContext()
        var pending: [ManagedObject] = []
        for i in 0..<count {
            let item = try context.insert("Item")
            try item.setValue(.string("\(ProcessInfo.processInfo.processIdentifier)-\(i)"), forKey: "name")
            pending.append(item)
            if pending.count == 100 || i == count - 1 {
                try context.save()
                CrashWorker.emit(pending.map(\.objectID.uriRepresentation).joined(separator: "\n"))
                pending = []
                context.reset()
            }
        }
    }

    private func unique(_ store: ObjectStore) throws {
        for round in 0..<count {
            let context = store.newContext()
            let item = try context.insert("Item")
            try item.setValue(.string("round-\(round)"), forKey: "name")
            do {
                try context.save()
                CrashWorker.emit("won \(round)")
            } catch let error as StrataError where error.code == .validationFailed || error.code == .conflict {
                continue
            }
        }
    }

    private func rewrite() throws {
        #if Postgres
        var options = try Self.rewriteOptions(batchSize: count)
        options.storeType = .postgres
        CrashWorker.emit("migrating")
        let store = try ObjectStore(at: location, model: try Self.rewrittenModel(), options: options)
        CrashWorker.emit("migrated")
        try store.close()
        #endif
    }

    private func commit(_ store: ObjectStore) throws {
        let context = store.newContext()
        for i in 0..<count {
            let item = try context.insert("Item")
            try item.setValue(.string("big-\(i)"), forKey: "name")
        }
        CrashWorker.emit("saving")
        try context.save()
        CrashWorker.emit("saved")
    }
}
