import Foundation
import Synchronization

/// Frees the disk space of store files a compaction retired, a piece at a time.
///
/// Why not let the last `close` free it: deleting a file frees all its extents in one
/// journal transaction, and where the file system discards freed blocks (ext4 mounted
/// `discard`, usual on cloud disks) that transaction's commit issues the discard of the
/// whole file. Every fsync of any file waits for the commit, so a durable save made as
/// a compaction step deletes a 64 MiB segment waited for 64 MiB of discards. Cut from
/// the end a piece at a time with a pause between, the commits that saves make meanwhile
/// carry a piece each.
///
/// A file comes here from ``ReclaimableFile`` when the last holder in this store lets
/// go (the store, a reader in flight, a snapshot). It was unlinked before it was
/// retired: a crash mid-way leaves nothing for open to find
/// (a journaling file system commits the unlink no later than the first cut). A file
/// another name still reaches (a backup's hard link) is closed whole, never cut, and
/// so is every file while a read-only store is registered: another process may hold
/// it open. One that registers later reads a manifest that no longer names it.
package final class FileReclaimer: @unchecked Sendable {
    // @unchecked: `queue`, `running` and `stopped` are read and written with
    // `condition` locked.
    private let condition = NSCondition()
    private var queue: [any StorageFile] = []
    private var running = false
    private var stopped = false
    /// Whether a store other than the one this reclaimer serves may be reading its files
    /// (a read-only store registered on its LOCK file).
    private let readersAttached: @Sendable () -> Bool

    init(readersAttached: @escaping @Sendable () -> Bool = { false }) {
        self.readersAttached = readersAttached
    }

    /// How much one cut frees; small enough that a commit's discard is well under a
    /// save's fsync. Tests make it smaller.
    package let pieceBytes = Atomic<Int64>(4 << 20)
    /// The pause between cuts: long enough for the commits of concurrent saves to carry
    /// about a piece each, short enough that a 64 MiB segment is freed in a fraction of a
    /// second.
    static let pause: TimeInterval = 0.01

    /// Takes a writable handle of an unlinked file no one else reads: it is cut on a
    /// thread of the reclaimer's and closed. After ``stop()`` it is closed at once.
    func adopt(_ file: any StorageFile) {
        condition.lock()
        guard !stopped else {
            condition.unlock()
            try? file.close()
            return
        }
        queue.append(file)
        let start = !running
        running = true
        condition.unlock()
        if start { startThread(named: "strata.reclaim") { [self] in run() } }
    }

    /// Ends the work: a cut under way stops after its piece, files waiting are closed
    /// whole (their space then goes at once), and so are files adopted later. Returns
    /// when the reclaimer's thread is done with them, so a closed store keeps no file open.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while running { condition.wait() }
        let rest = queue
        queue = []
        condition.unlock()
        for file in rest { try? file.close() }
    }

    /// Returns once every file adopted so far is cut and closed.
    package func waitUntilIdle() {
        condition.lock()
        while running { condition.wait() }
        condition.unlock()
    }

    private func run() {
        while let file = next() {
            cut(file)
            try? file.close()
        }
    }

    private func next() -> (any StorageFile)? {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, !queue.isEmpty else {
            running = false
            condition.broadcast()
            return nil
        }
        return queue.removeFirst()
    }

    /// Cuts the file down from its end. A failed cut ends it: closing frees the rest,
    /// at once, as a plain close would have.
    private func cut(_ file: any StorageFile) {
        guard (file as? LinkCounting)?.linkCount() == 0, !readersAttached(), var size = try? file.size() else { return }
        while size > 0 {
            size = max(0, size - max(1, pieceBytes.load(ordering: .relaxed)))
            do { try file.truncate(to: size) } catch { return }
            guard size > 0, pauseUnlessStopped() else { return }
        }
    }

    /// Waits one pause; false when ``stop()`` came meanwhile.
    private func pauseUnlessStopped() -> Bool {
        let until = Date(timeIntervalSinceNow: Self.pause)
        condition.lock()
        defer { condition.unlock() }
        while !stopped && condition.wait(until: until) {}
        return !stopped
    }
}
