import Foundation
import StrataLog

extension ObjectStore {
    /// Copies the store, as it was at one transaction, into a new directory at
    /// `destination`, while contexts go on reading and saving: the engine's
    /// `LogStore.backup(to:progress:)`, run on a thread of its own so that the copy
    /// never holds a thread of the cooperative pool.
    ///
    /// ```swift
    /// let report = try await store.backup(to: "/backups/Employees-monday.strata")
    /// print("objects saved up to transaction \(report.sequence) are in the backup")
    /// ```
    ///
    /// The copy opens as any store, with the same model. Once started, the backup runs
    /// to its end: cancelling the task does not stop it.
    ///
    /// - Parameters:
    ///   - destination: the backup's directory; it must not exist, its parent must.
    ///   - progress: called on the backup's thread as files are linked or copied.
    /// - Throws: `.invalidArgument` for an in-memory store ("this store type has no file
    ///   backup") and as `LogStore.backup(to:progress:)` does.
    public func backup(to destination: String, progress: (@Sendable (BackupProgress) -> Void)? = nil) async throws -> BackupReport {
        guard options.storeType == .segmentLog, let log = records as? LogStore else {
            throw StrataError(.invalidArgument, "this store type has no file backup", path: path)
        }
        // Counted as work in flight: an async close waits for the copy to end.
        try lanes.beginRead()
        defer { lanes.end(write: false) }
        return try await measured(.backup) {
            try await WorkQueue.detached(name: "strata.backup") { try log.backup(to: destination, progress: progress) }
        }
    }
}
