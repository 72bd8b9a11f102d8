import Foundation
import Synchronization

/// Stores of N employees built once per process and store format (engine, object layer,
/// SQLite), for the workloads that read (fetch, query, open) or start from a full store
/// (lightweight migration, compaction: they copy it first). Built with the engine's
/// `fixtureBuilder`, then sealed (Strata: every segment has its index file) or checkpointed (SQLite).
public final class FixtureCache: Sendable {
    public static let shared = FixtureCache()

    private let directories = Mutex<[String: ScratchDirectory]>([:])

    /// The directory holding a store of `count` employees written by `engine`'s format.
    public func directory(for engine: any EmployeeEngine, employees: [Employee]) throws -> String {
        let builder = engine.fixtureBuilder
        return try directory(key: "\(builder.name)-\(employees.count)") { path in
            let store = try builder.create(in: path)
            try store.insertInOneTransaction(employees)
            try store.prepareForReopen()
            try store.close()
        }
    }

    /// The directory `build` filled for `key`, built on first use (the photo stores).
    public func directory(key: String, build: (String) throws -> Void) throws -> String {
        if let existing = directories.withLock({ $0[key] }) { return existing.path }
        let scratch = try ScratchDirectory("fixture-\(key.replacingOccurrences(of: " ", with: "-"))")
        do {
            try build(scratch.path)
        } catch {
            scratch.remove()
            throw error
        }
        directories.withLock { $0[key] = scratch }
        return scratch.path
    }

    /// Deletes every fixture (at exit), unless `STRATA_BENCH_KEEP_FIXTURES=1`: then it
    /// says where they are, to profile one part alone (`BenchSummary --child TASK DIR`).
    public func removeAll() {
        if ProcessInfo.processInfo.environment["STRATA_BENCH_KEEP_FIXTURES"] == "1" {
            for (key, scratch) in directories.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
                FileHandle.standardError.write(Data("kept fixture \(key): \(scratch.path)\n".utf8))
            }
            return
        }
        let all = directories.withLock { d -> [ScratchDirectory] in defer { d = [:] }; return Array(d.values) }
        for scratch in all { scratch.remove() }
    }
}
