import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog

/// `close()` while a compaction step finishes: after its swap, outside the writer lock,
/// a step fsyncs the store's directory and removes the group's files. A close that
/// returned before that would let another process open the store while this one still
/// removed files in it, so close waits for the step to stop.
@Suite struct CloseDuringCompactionTests {
    /// Holds the first directory fsync of the store's root once armed, until released.
    final class HeldRootSync: FileSystemWrapper {
        let base: any FileSystem
        let root: String
        private let armed = Locked(false)
        let reached = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        init(wrapping base: any FileSystem, root: String) {
            self.base = base
            self.root = root
        }

        func arm() { armed.withLock { $0 = true } }

        func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile { try base.open(path, mode: mode) }

        func syncDirectory(_ path: String) throws {
            let hold = path == root && armed.withLock { was in defer { was = false }; return was }
            if hold {
                reached.signal()
                release.wait()
            }
            try base.syncDirectory(path)
        }
    }

    @Test func closeWaitsForTheStepAfterItsSwap() throws {
        let root = "/s"
        let fs = HeldRootSync(wrapping: InMemoryFileSystem(), root: root)
        var options = LogStoreOptions()
        options.overlayEntryLimit = 100
        let store = try LogStore.open(at: root, options: options, fileSystem: fs, logger: .quiet)
        let expected = try CompactionTests.writeEveryKeyThenTheEvenOnes(store)
        // Armed as the first swap begins: no blob file is named and the active segment
        // needs no roll, so the root's next fsync is the one after the lock.
        store.compactionWillSwap.withLock { $0 = { step in if step == 1 { fs.arm() } } }
        let compacted = DispatchSemaphore(value: 0)
        let closed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? store.compact(force: true)
            compacted.signal()
        }
        #expect(fs.reached.wait(timeout: .now() + 30) == .success, "the first swap's directory fsync was reached")
        Thread.detachNewThread {
            try? store.close()
            closed.signal()
        }
        // The close has told compaction to stop; the step is held after its swap, so
        // close has not returned.
        let deadline = ContinuousClock.now + .seconds(30)
        while !store.compactionStopped.load(ordering: .relaxed), ContinuousClock.now < deadline { usleep(1_000) }
        let stopped = store.compactionStopped.load(ordering: .relaxed)
        #expect(stopped, "close did not stop the compaction")
        let returnedEarly = closed.wait(timeout: .now() + .milliseconds(300)) == .success
        #expect(!returnedEarly, "close returned while a compaction step was still removing files")
        fs.release.signal()
        #expect(compacted.wait(timeout: .now() + 30) == .success)
        if !returnedEarly { #expect(closed.wait(timeout: .now() + 30) == .success) }

        let reopened = try LogStore.open(at: root, options: options, fileSystem: fs, logger: .quiet)
        defer { try? reopened.close() }
        for (key, value) in expected { #expect(try reopened.get(RecordKey(key))?.value == value, "key \(key)") }
        #expect(try reopened.verify().isSound)
    }
}
