import Foundation
import Synchronization

/// Names the backups of `POST /admin/backup`: `<directory>/backup-<UTC time>-<n>`,
/// with `n` counting this process's backups, so that two in the same second differ.
/// The request names nothing: the operator chose `directory` when starting the server.
final class BackupNamer: Sendable {
    let directory: String
    private let count = Atomic(0)

    init(directory: String) {
        self.directory = directory
    }

    /// A path in ``directory`` that does not exist yet (a backup's destination must
    /// not), e.g. `backup-20260314T093000Z-1`.
    func next(now: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let stamp = formatter.string(from: now)
        while true {
            let n = count.add(1, ordering: .relaxed).newValue
            let path = (directory as NSString).appendingPathComponent("backup-\(stamp)-\(n)")
            // A restarted process counts from 1 again within the same second.
            if !FileManager.default.fileExists(atPath: path) { return path }
        }
    }
}
