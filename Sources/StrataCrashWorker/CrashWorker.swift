import StrataTestSupport
import Foundation
import Logging
import StrataLog

/// The child process of the crash tests: commits the workload's transactions forever
/// and prints `ACK <n>` after each commit returned. The test kills it with SIGKILL;
/// nothing here ever stops on its own except on an error, which it reports on stderr.
struct CrashWorker {
    enum Mode: String, Sendable {
        /// Commits only.
        case write
        /// Commits on this thread while another compacts with `force: true` in a loop.
        case compact
        /// Commits each transaction in chunks of two writes (`commit(chunks:)`), so
        /// kills land while chunks are appended, scratch runs spilled and merged, the
        /// index file streamed, and the segment sealed.
        case bulk
    }

    var mode: Mode
    var path: String
    var seed: UInt64

    /// Warnings (torn tails cut, leftovers removed) reach stderr, which the test keeps
    /// for its failure messages; per-roll info lines would only drown them.
    static func logger() -> Logger {
        var logger = Logger(label: "strata.crash-worker")
        logger.logLevel = .warning
        return logger
    }

    /// Opens the store the previous round's kill left, the way both processes do.
    static func openStore(at path: String, mode: Mode = .write, logger: Logger = logger()) throws -> LogStore {
        try LogStore.open(at: path, options: CrashWorkload.options(mode: mode), logger: logger)
    }

    /// The last transaction a store holds, read from the counter key: 0 for a new store.
    static func lastTransaction(in store: LogStore) throws -> UInt64 {
        guard let record = try store.get(CrashWorkload.counterKey) else { return 0 }
        guard let header = ValueHeader(decoding: record.value) else {
            throw WorkerFailure("counter key holds \(record.value.count) bytes that are no workload value")
        }
        return header.transaction
    }

    func run() throws -> Never {
        let store = try Self.openStore(at: path, mode: mode)
        let last = try Self.lastTransaction(in: store)
        // Sequences count commits and every transaction is one non-empty commit, so
        // the counter and the store's sequence must agree; if not, numbering is lost.
        guard store.lastSequence == last else {
            throw WorkerFailure("store's last sequence \(store.lastSequence) differs from its counter \(last)")
        }
        Self.emit("READY \(last + 1)")
        if mode == .compact { startCompacting(store) }
        var n = last + 1
        while true {
            let sequence = mode == .bulk ? try commitInChunks(n, to: store) : try store.commit(try batch(for: n, in: store))
            guard sequence == n else { throw WorkerFailure("transaction \(n) committed as sequence \(sequence)") }
            Self.emit("ACK \(n)")
            n += 1
        }
    }

    /// Builds transaction `n`, writing its blobs first (they are not durable, nor
    /// referenced, until the commit is).
    func batch(for n: UInt64, in store: LogStore) throws -> WriteBatch {
        var batch = WriteBatch()
        for operation in CrashWorkload.transaction(n, seed: seed) {
            switch operation {
            case let .delete(key):
                batch.delete(RecordKey(key))
            case let .put(key, valueSize, specs):
                var refs: [BlobRef] = []
                for (index, spec) in specs.enumerated() {
                    refs.append(try store.writeBlob(CrashWorkload.blob(seed: seed, transaction: n, key: key, index: index, spec: spec)))
                }
                batch.put(RecordKey(key), value: CrashWorkload.value(seed: seed, transaction: n, key: key, size: valueSize), blobs: refs)
            }
        }
        return batch
    }

    /// Transaction `n` through `commit(chunks:)`, two writes a chunk, its blobs
    /// written by the commit's own `writeBlob`.
    func commitInChunks(_ n: UInt64, to store: LogStore) throws -> UInt64 {
        var operations = CrashWorkload.transaction(n, seed: seed)[...]
        return try store.commit { batch, writeBlob in
            for operation in operations.prefix(2) {
                switch operation {
                case let .delete(key):
                    batch.delete(RecordKey(key))
                case let .put(key, valueSize, specs):
                    let refs = try specs.enumerated().map { index, spec in
                        try writeBlob(CrashWorkload.blob(seed: seed, transaction: n, key: key, index: index, spec: spec))
                    }
                    batch.put(RecordKey(key), value: CrashWorkload.value(seed: seed, transaction: n, key: key, size: valueSize), blobs: refs)
                }
            }
            operations = operations.dropFirst(2)
            return !operations.isEmpty
        }
    }

    private func startCompacting(_ store: LogStore) {
        let seed = seed
        // Some rounds end by the worker's own SIGKILL at the point between a step's
        // copy and its swap (outputs written and synced, the manifest not yet naming
        // them); the others at the harness's random moment, wherever it falls.
        let stepKill = Locked(SeededRandom(seed: seed &+ UInt64(getpid()), stream: .max - 1))
        store.compactionWillSwap.withLock {
            $0 = { step in
                if step > 1, stepKill.withLock({ $0.int(in: 0...15) }) == 0 { kill(getpid(), SIGKILL) }
            }
        }
        Thread.detachNewThread {
            var random = SeededRandom(seed: seed, stream: .max)
            while true {
                do {
                    try store.compact(force: true)
                } catch {
                    Self.die("compaction failed: \(error)")
                }
                // A short, varying pause lets commits land between compactions, so
                // kills find both "compacting" and "writing a fresh segment" states.
                usleep(UInt32(random.int(in: 0...20_000)))
            }
        }
    }

    /// Writes one line with a single write(2): unbuffered, so an `ACK` line is out of
    /// this process before the next commit starts, and a SIGKILL cannot lose it. One
    /// writer at a time: the concurrent modes' threads never interleave their lines.
    static func emit(_ line: String) {
        let bytes = Data((line + "\n").utf8)
        emitting.withLock { _ in FileHandle.standardOutput.write(bytes) }
    }

    private static let emitting = Locked(())

    static func die(_ message: String) -> Never {
        FileHandle.standardError.write(Data("StrataCrashWorker: \(message)\n".utf8))
        exit(1)
    }
}

struct WorkerFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
