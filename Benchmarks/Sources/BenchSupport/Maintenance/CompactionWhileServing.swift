import Foundation
import GRDB
import Strata
import StrataLog
import Synchronization

/// Compaction while serving: a store of N employees with half of them overwritten is
/// compacted while one thread reads random objects back to back and another makes a
/// durable one-object save every 2 ms. Each read and save is timed, first for a while
/// with nothing else running (idle), then for as long as the maintenance runs
/// (during). Strata compacts (`ObjectStore.compact`: bounded steps that swap one
/// segment group at a time, on a thread of lower priority) twice: as fast as it goes
/// (`strata compact`), and at the rate a `StoreService`'s policy caps it to by
/// default; SQLite runs `VACUUM`, its nearest operation
/// (the store is not created with `auto_vacuum = INCREMENTAL`, so `incremental_vacuum`
/// does not apply), with WAL so that its readers keep reading.
public enum CompactionWhileServing {
    /// What one side measured.
    public struct Outcome: Sendable {
        public var idle: Phase
        public var during: Phase
        /// How long the maintenance ran.
        public var maintenance: Duration
        /// Segment (or database) bytes before and after.
        public var bytesBefore: Int
        public var bytesAfter: Int
        /// Strata's own count of the longest time a step's swap held commits off.
        public var longestPause: Duration?
    }

    /// The latencies of one phase.
    public struct Phase: Sendable {
        public var reads: Latencies
        public var saves: Latencies
    }

    /// Percentiles of a list of timings.
    public struct Latencies: Sendable {
        public var count: Int
        public var p50: Duration
        public var p99: Duration
        public var max: Duration

        init(_ timings: [Duration]) {
            let sorted = timings.sorted()
            count = sorted.count
            func at(_ q: Double) -> Duration {
                sorted.isEmpty ? .zero : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded(.up)))]
            }
            p50 = at(0.5)
            p99 = at(0.99)
            max = sorted.last ?? .zero
        }
    }

    /// How long the idle phase lasts.
    public static let idleTime: Duration = .seconds(3)
    /// The gap between two saves.
    public static let saveInterval: Duration = .milliseconds(2)

    /// `StoreService.Configuration.compactionBytesPerSecond`'s default (the benchmarks
    /// do not build the service product).
    public static let servicePolicyBytesPerSecond = 16 << 20

    /// - Parameter bytesPerSecond: the compaction's cap (nil: none).
    public static func strata(_ employees: [Employee], bytesPerSecond: Int? = nil) throws -> Outcome {
        let (scratch, copy) = try LightweightMigration.freshCopy(of: StrataObjectEngine(), employees)
        defer { scratch.remove() }
        let store = try ObjectStore(at: StrataObjectEngine.storePath(in: copy), model: BenchModels.employees(),
                                    options: StrataObjectEngine.options())
        defer { try? store.close() }
        let ids = try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Employee"))
        try overwriteHalf(store, ids)
        let before = store.usage.segmentBytes
        var report: CompactionReport?
        let outcome = try serve(
            read: { random in
                let context = store.newContext()
                _ = try context.object(with: ids[Int(random % UInt64(ids.count))]).int("salary")
            },
            save: { random in
                let context = store.newContext()
                let employee = try context.object(with: ids[Int(random % UInt64(ids.count))])
                try employee.setValue(.int(Int64(random % 1_000_000)), forKey: "salary")
                try context.save()
            },
            maintenance: { report = try blocking { try await store.compact(bytesPerSecond: bytesPerSecond) } })
        return Outcome(idle: outcome.idle, during: outcome.during, maintenance: outcome.maintenance,
                       bytesBefore: Int(before), bytesAfter: Int(store.usage.segmentBytes), longestPause: report?.longestPause)
    }

    public static func sqlite(_ employees: [Employee]) throws -> Outcome {
        let (scratch, copy) = try LightweightMigration.freshCopy(of: GRDBEngine(synchronous: .full), employees)
        defer { scratch.remove() }
        let store = try GRDBEmployeeStore(path: GRDBEngine.databasePath(in: copy), synchronous: .full)
        defer { try? store.close() }
        try store.pool.write { db in try db.execute(sql: "UPDATE employee SET salary = salary + 1 WHERE id % 2 = 0") }
        let n = UInt64(employees.count)
        let before = DiskUsage.bytes(at: copy)
        let pool = store.pool
        let outcome = try serve(
            read: { random in
                _ = try pool.read { db in
                    try Int.fetchOne(db, sql: "SELECT salary FROM employee WHERE id = ?", arguments: [Int64(1 + random % n)])
                }
            },
            save: { random in
                try pool.write { db in
                    try db.execute(sql: "UPDATE employee SET salary = ? WHERE id = ?", arguments: [Int64(random % 1_000_000), Int64(1 + random % n)])
                }
            },
            maintenance: { try pool.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") } })
        return Outcome(idle: outcome.idle, during: outcome.during, maintenance: outcome.maintenance,
                       bytesBefore: before, bytesAfter: DiskUsage.bytes(at: copy))
    }

    /// The disk alone, for comparison: a plain sequential writer with compaction's
    /// pattern (`bytes` in 256 KiB pieces, each written out before the next, as
    /// `compactionBytesPerSync` paces compaction; an fsync at the end), spread over
    /// `duration`, while the probe appends 200 bytes to a file of its own and fsyncs it
    /// every 2 ms and the reader reads 4 KiB at random from a cached file. What the
    /// writer does to the probe's fsyncs is what any process writing at that rate to
    /// the same disk does to a durable commit's.
    public static func disk(bytes: Int, over duration: Duration) throws -> Outcome {
        let scratch = try ScratchDirectory("serving-disk")
        defer { scratch.remove() }
        let files = POSIXFileSystem()
        let probe = try files.open(scratch.path + "/probe", mode: .create)
        let cached = try files.open(scratch.path + "/cached", mode: .create)
        defer { try? probe.close(); try? cached.close() }
        let cachedBlocks = 4_096
        let block = [UInt8](repeating: 0x5A, count: 4_096)
        for i in 0..<cachedBlocks { try block.withUnsafeBytes { try cached.write($0, at: Int64(i * block.count)) } }
        let probeEnd = Mutex<Int64>(0)
        let record = [UInt8](repeating: 0xA5, count: 200)
        let outcome = try serve(
            read: { random in
                var buffer = [UInt8](repeating: 0, count: 4_096)
                _ = try buffer.withUnsafeMutableBytes { try cached.read(into: $0, at: Int64(Int(random % UInt64(cachedBlocks)) * 4_096)) }
            },
            save: { _ in
                let end = probeEnd.withLock { e in defer { e += Int64(record.count) }; return e }
                try record.withUnsafeBytes { try probe.write($0, at: end) }
                try probe.sync()
            },
            maintenance: {
                let out = try files.open(scratch.path + "/written", mode: .create)
                defer { try? out.close() }
                let piece = [UInt8]((0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
                let started = ContinuousClock.now
                var written = 0
                while written < bytes {
                    let count = min(piece.count, bytes - written)
                    try piece[0..<count].withUnsafeBytes { try out.write($0, at: Int64(written)) }
                    try out.writeBack(Int64(written)..<Int64(written + count))
                    written += count
                    // Spread evenly over `duration`, as compaction's throttle spreads its reads.
                    let due = duration * (Double(written) / Double(max(1, bytes)))
                    let wait = due - (ContinuousClock.now - started)
                    if wait > .zero { Thread.sleep(forTimeInterval: wait / .seconds(1)) }
                }
                try out.sync()
            })
        return Outcome(idle: outcome.idle, during: outcome.during, maintenance: outcome.maintenance, bytesBefore: 0, bytesAfter: bytes)
    }

    /// Runs `body` (the store's async API, as a service calls it) and waits for it.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<T, any Error>?>(nil)
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// Every second employee's salary changed, a context save per 100,000 objects.
    static func overwriteHalf(_ store: ObjectStore, _ ids: [ObjectID]) throws {
        var start = 0
        while start < ids.count {
            let context = store.newContext()
            for index in stride(from: start, to: min(ids.count, start + 100_000), by: 2) {
                let employee = try context.object(with: ids[index])
                try employee.setValue(.int(Int64(try employee.int("salary") ?? 0) + 1), forKey: "salary")
            }
            try context.save()
            start += 100_000
        }
    }

    /// Runs the reader and the saver, idle for `idleTime`, then while `maintenance` runs
    /// on the calling thread. An operation belongs to the phase in which it started: a
    /// save held off by the maintenance counts there with all its wait. A failed read or
    /// save fails the workload.
    static func serve(read: @escaping @Sendable (UInt64) throws -> Void, save: @escaping @Sendable (UInt64) throws -> Void,
                      maintenance: () throws -> Void) throws -> Outcome {
        let log = TimingLog()
        let reader = Thread {
            var random = SplitMix64(seed: 0x5EAD)
            while !log.stopped {
                let start = ContinuousClock.now
                do { try read(random.next()) } catch { log.fail(error); return }
                log.add(read: start)
            }
            log.finished()
        }
        let saver = Thread {
            var random = SplitMix64(seed: 0x5A7E)
            var next = ContinuousClock.now
            while !log.stopped {
                let start = ContinuousClock.now
                do { try save(random.next()) } catch { log.fail(error); return }
                log.add(save: start)
                next = max(next + saveInterval, ContinuousClock.now)
                let wait = next - ContinuousClock.now
                if wait > .zero { Thread.sleep(forTimeInterval: wait / .seconds(1)) }
            }
            log.finished()
        }
        reader.start()
        saver.start()
        Thread.sleep(forTimeInterval: idleTime / .seconds(1))
        let started = ContinuousClock.now
        let result = Result { try maintenance() }
        let ended = ContinuousClock.now
        log.stop()
        try result.get()
        if let failure = log.failure { throw failure }
        return Outcome(idle: log.phase(from: started - idleTime, to: started), during: log.phase(from: started, to: ended),
                       maintenance: ended - started, bytesBefore: 0, bytesAfter: 0)
    }
}

/// The timings the two threads record: each operation's start and duration.
private final class TimingLog: Sendable {
    private struct State {
        var reads: [(start: ContinuousClock.Instant, time: Duration)] = []
        var saves: [(start: ContinuousClock.Instant, time: Duration)] = []
        var stopped = false
        var running = 2
        var failure: (any Error)?
    }

    private let state = Mutex(State())

    var stopped: Bool { state.withLock { $0.stopped } }
    var failure: (any Error)? { state.withLock { $0.failure } }

    func add(read start: ContinuousClock.Instant) {
        let time = ContinuousClock.now - start
        state.withLock { $0.reads.append((start, time)) }
    }

    func add(save start: ContinuousClock.Instant) {
        let time = ContinuousClock.now - start
        state.withLock { $0.saves.append((start, time)) }
    }

    func fail(_ error: any Error) {
        state.withLock {
            $0.failure = $0.failure ?? error
            $0.stopped = true
            $0.running -= 1
        }
    }

    func finished() { state.withLock { $0.running -= 1 } }

    /// The operations that started in `from..<to`.
    func phase(from: ContinuousClock.Instant, to: ContinuousClock.Instant) -> CompactionWhileServing.Phase {
        state.withLock { s in
            .init(reads: .init(s.reads.filter { $0.start >= from && $0.start < to }.map(\.time)),
                  saves: .init(s.saves.filter { $0.start >= from && $0.start < to }.map(\.time)))
        }
    }

    /// Stops both threads and waits until their last operations have finished.
    func stop() {
        state.withLock { $0.stopped = true }
        while state.withLock({ $0.running > 0 }) { Thread.sleep(forTimeInterval: 0.001) }
    }
}
