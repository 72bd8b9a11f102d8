import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog
@testable import StrataCrashWorker

/// Two processes on one store: while a writer process holds it, a second opener — this
/// test process — is refused with the locked error, and gets the store once the
/// writer is gone.
@Suite struct TwoProcessLockTests {
    @Test func aSecondWriterProcessIsRefusedWithTheLockedError() throws {
        let dir = try TemporaryDirectory("twoprocess")
        defer { dir.remove() }
        let worker = try WorkerProcess(mode: .write, store: dir.path, seed: 7)
        #expect(worker.stdout.wait(timeout: .seconds(30)) { $0.contains("READY") }, "the worker opened the store")
        let error = #expect(throws: StrataError.self) { _ = try LogStore.open(at: dir.path, logger: .quiet) }
        #expect(error?.code == .storeLocked)
        #expect(error?.message.contains("locked") == true)
        #expect(error?.path?.hasSuffix("/LOCK") == true)
        _ = worker.killAndCollect()
        // The kernel drops a dead process's flock: the store opens now, and recovers.
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        #expect(try store.verify().isSound)
        try store.close()
    }
}
