import Foundation
import GRDB
import Logging
import StrataLog

/// The scale section's crash-recovery figure, one side at a time in a fresh child process of
/// BenchSummary: open a store whose writer was killed right after committing one
/// transaction of all the employees, before the step that makes the next open cheap,
/// and count the employees.
///
/// - Strata: a chunked commit (`commit(chunks:)`) that wrote its commit frame and was
///   stopped before its seal frame (the seal's write fails; the process then stops
///   with the page cache's bytes, as a kill leaves them). Open seals the segment around
///   the transaction (FORMAT.md §4.7), building its index file through scratch sorters.
/// - SQLite: the same rows in one transaction in WAL mode, automatic checkpoints off,
///   the database and its WAL copied while the connection is open (no `-shm`): open
///   reads the WAL to rebuild its index.
///
/// The child's peak resident set is the figure: a recovery that held the transaction
/// would grow with it.
public enum RecoveryTask: String, Sendable, CaseIterable {
    case recoverStrata = "recover-strata"
    case recoverSQLite = "recover-sqlite"

    public var engine: any EmployeeEngine {
        switch self {
        case .recoverStrata: StrataLogEngine(durability: .everyCommit)
        case .recoverSQLite: GRDBEngine(synchronous: .full)
        }
    }

    /// The killed store of `employees`, in a new scratch directory (the caller removes it).
    public func prepare(_ employees: [Employee]) throws -> ScratchDirectory {
        let directory = try ScratchDirectory(rawValue)
        switch self {
        case .recoverStrata: try Self.killedChunkedCommit(employees, in: directory.path)
        case .recoverSQLite: try Self.uncheckpointedWAL(employees, in: directory.path)
        }
        return directory
    }

    /// The measured part: open and count.
    public func iteration(in directory: String) throws -> WorkloadIteration {
        Workloads.openAndCount(engine, in: directory)
    }

    private static func killedChunkedCommit(_ employees: [Employee], in directory: String) throws {
        let path = StrataLogEngine.storePath(in: directory)
        // One write to the segment per chunk, then the commit frame, then the seal frame.
        // Two chunks at least: a transaction of one chunk is an ordinary commit, with no
        // seal to stop before (at N = 10k the scale section's N/10 fit in one).
        let chunk = min(StrataLogEmployeeStore.chunk, max(1, (employees.count + 1) / 2))
        let chunks = (employees.count + chunk - 1) / chunk
        let fileSystem = FailingWriteFileSystem()
        var options = LogStoreOptions()
        options.durability = .everyCommit
        let store = try LogStore.open(at: path, options: options, fileSystem: fileSystem, logger: Logger(label: "strata.bench") { _ in SwiftLogNoOpLogHandler() })
        fileSystem.failWrite(chunks + 2, toPathsContaining: "segments/")
        var next = employees.startIndex
        do {
            try store.commit { batch, _ in
                let end = min(employees.endIndex, next + chunk)
                for e in employees[next..<end] { StrataLogEmployeeStore.put(e, into: &batch) }
                next = end
                return next < employees.endIndex
            }
            throw BenchError("the chunked commit sealed its segment: the seal frame's write was to fail")
        } catch let error as StrataError where error.code == .io {
            // Expected: the transaction is committed, its segment unsealed.
        }
        try? store.close()
        // The segment must end with the commit frame (12-byte header, 16-byte payload; type 2).
        let segments = (path as NSString).appendingPathComponent("segments")
        guard let last = try FileManager.default.contentsOfDirectory(atPath: segments).filter({ $0.hasSuffix(".seg") }).max() else {
            throw BenchError("no segment in \(segments)")
        }
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: (segments as NSString).appendingPathComponent(last)))
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size - 28)
        guard let tail = try handle.read(upToCount: 28), tail.count == 28, tail[tail.startIndex + 8] == 2 else {
            throw BenchError("the killed segment does not end with a commit frame")
        }
    }

    private static func uncheckpointedWAL(_ employees: [Employee], in directory: String) throws {
        let build = try ScratchDirectory("recover-sqlite-build")
        defer { build.remove() }
        guard let store = try GRDBEngine(synchronous: .full).create(in: build.path) as? GRDBEmployeeStore else {
            throw BenchError("not a GRDB store")
        }
        try store.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        try store.insertInOneTransaction(employees)
        // What a kill leaves: the database and its WAL as they are, the shared-memory
        // index gone with the process.
        let source = GRDBEngine.databasePath(in: build.path), target = GRDBEngine.databasePath(in: directory)
        try FileManager.default.copyItem(atPath: source, toPath: target)
        try FileManager.default.copyItem(atPath: source + "-wal", toPath: target + "-wal")
        try store.close()
    }
}
