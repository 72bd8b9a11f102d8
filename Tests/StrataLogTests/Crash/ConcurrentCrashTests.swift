import Foundation
import Testing
import StrataTestSupport
@testable import StrataCrashWorker
@testable import StrataLog

/// Group commit under real crashes: the worker's eight threads commit at once (their
/// commits share fsyncs), and the test SIGKILLs it at random moments. Each thread commits
/// its own numbered sequence in order, so after every kill, for each thread: the
/// commits present are exactly 1…P (a prefix: no hole), P reaches the thread's last
/// acknowledged commit A, and P ≤ A + 1 (only the one in flight may have landed);
/// each commit's two records (data key and head key) are there together with their
/// bytes, and the store verifies. Serialized, as the other crash suites.
@Suite(.serialized) struct ConcurrentCrashTests {
    static let rounds = 12

    @Test func killedConcurrentCommittersKeepEveryAcknowledgedCommit() throws {
        let began = ContinuousClock.now
        let summary = try ConcurrentCrashRounds(rounds: Self.rounds).run()
        print("real-crash concurrent mode, \(Self.rounds) rounds, \(ConcurrentWorkload.threads) threads: \(summary), \((ContinuousClock.now - began).components.seconds) s")
        #expect(summary.kills == Self.rounds && summary.holes == 0 && summary.mismatches == 0 && summary.verified == Self.rounds)
        // Guards against a vacuous pass: the threads must have committed, and together.
        #expect(summary.acknowledged >= Self.rounds * ConcurrentWorkload.threads, "only \(summary.acknowledged) commits acknowledged")
        #expect(summary.threadsAcknowledging == ConcurrentWorkload.threads, "only \(summary.threadsAcknowledging) threads had a commit acknowledged")
    }

    /// `STRATA_GROUP_COMMIT_KILLS`, when set (`make crash-campaign-group-commit`).
    static let groupCommitKills = ProcessInfo.processInfo.environment["STRATA_GROUP_COMMIT_KILLS"].flatMap(Int.init)

    /// Group commit's share of `make crash-campaign`, on top of the others: a tenth of
    /// `STRATA_CRASH_CAMPAIGN` kills, in stores of 40 rounds — or
    /// `STRATA_GROUP_COMMIT_KILLS` kills on their own.
    @Test(.enabled(if: CrashCampaignTests.totalKills != nil || groupCommitKills != nil)) func crashCampaignGroupCommit() throws {
        let began = ContinuousClock.now
        var total = ConcurrentCrashRounds.Summary()
        var remaining = Self.groupCommitKills ?? max(1, (CrashCampaignTests.totalKills ?? 0) * 10 / 100)
        let kills = remaining
        while remaining > 0 {
            let rounds = min(remaining, 40)
            let summary = try ConcurrentCrashRounds(rounds: rounds).run()
            total.add(summary)
            remaining -= rounds
            if summary.kills < rounds { break }
        }
        print("crash-campaign group commit: kills \(total.kills), stores opened \(total.opened), verified \(total.verified), holes \(total.holes), mismatches \(total.mismatches) (\(total.acknowledged) commits acknowledged by \(ConcurrentWorkload.threads) threads, \(total.inFlightLanded) in-flight commits landed), \((ContinuousClock.now - began).components.seconds) s")
        #expect(total.kills == kills && total.holes == 0 && total.mismatches == 0 && total.verified == total.kills)
    }

    /// The oracle rejects what it must: a store missing a thread's commit in the middle,
    /// or holding a commit's data key without its head key, or another seed's bytes.
    @Test func concurrentOracleRejectsHolesTornCommitsAndOtherBytes() throws {
        let directory = try TemporaryDirectory("concurrent-oracle")
        defer { directory.remove() }
        let seed: UInt64 = 11
        let store = try LogStore.open(at: directory.path, options: ConcurrentWorkload.engineOptions(), logger: .quiet)
        defer { try? store.close() }
        for index in UInt64(1)...6 {
            for thread in 0..<ConcurrentWorkload.threads {
                try ConcurrentCrashWorker.commit(thread: thread, index: index, seed: seed, to: store)
            }
        }
        var found = ConcurrentCrashRounds.check(store, seed: seed)
        #expect(found.problems == [])
        #expect(found.present == Array(repeating: 6, count: ConcurrentWorkload.threads))
        #expect(ConcurrentCrashRounds.check(store, seed: seed + 1).problems != [])
        // Thread 2's commit 7 in part: its data key without its head key.
        var torn = WriteBatch()
        torn.put(RecordKey(ConcurrentWorkload.key(thread: 2, index: 7)), value: ConcurrentWorkload.value(thread: 2, index: 7, seed: seed))
        try store.commit(torn)
        found = ConcurrentCrashRounds.check(store, seed: seed)
        #expect(found.problems.contains { $0.contains("thread 2") }, "\(found.problems)")
        // A hole: thread 5's commit 3 gone.
        var hole = WriteBatch()
        hole.delete(RecordKey(ConcurrentWorkload.key(thread: 5, index: 3)))
        try store.commit(hole)
        found = ConcurrentCrashRounds.check(store, seed: seed)
        #expect(found.problems.contains { $0.contains("thread 5") }, "\(found.problems)")
    }
}

/// Kills the `concurrent` worker over and over on one store and checks the per-thread
/// prefix oracle after each kill (see `ConcurrentCrashTests`).
struct ConcurrentCrashRounds {
    var rounds: Int
    /// Kill this long after READY: from commits in full flow to a second of them.
    var killDelay: ClosedRange<Int> = 20...900
    /// Every `earlyKillEvery`th round kills 0–80 ms after launch instead, so that some
    /// kills land in open and recovery.
    var earlyKillEvery = 6

    struct Summary: CustomStringConvertible {
        var kills = 0
        var opened = 0
        var verified = 0
        /// Reopened stores missing an acknowledged commit, or a commit in a thread's middle.
        var holes = 0
        /// Reopened stores holding more than a thread's in-flight commit, or wrong contents.
        var mismatches = 0
        var acknowledged = 0
        /// Threads' in-flight commits that landed (at most one a thread a kill).
        var inFlightLanded = 0
        /// Threads that had at least one commit acknowledged in some round.
        var threadsAcknowledging = 0
        var lastSequence: UInt64 = 0
        var verifyWarnings = 0

        mutating func add(_ other: Summary) {
            kills += other.kills
            opened += other.opened
            verified += other.verified
            holes += other.holes
            mismatches += other.mismatches
            acknowledged += other.acknowledged
            inFlightLanded += other.inFlightLanded
            threadsAcknowledging = max(threadsAcknowledging, other.threadsAcknowledging)
            verifyWarnings += other.verifyWarnings
        }

        var description: String {
            "kills \(kills), verified \(verified), holes \(holes), mismatches \(mismatches); \(acknowledged) commits acknowledged by \(threadsAcknowledging) threads, \(inFlightLanded) in-flight commits landed, store at sequence \(lastSequence), \(verifyWarnings) warnings from verify"
        }
    }

    func run() throws -> Summary {
        let directory = try TemporaryDirectory("crash-concurrent")
        defer { directory.remove() }
        let storePath = directory.appending("store.strata")
        var random = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 1...UInt64(Int64.max), using: &random)
        let threads = ConcurrentWorkload.threads
        // Each thread's commits the store held after the previous round: 1…present[t].
        var present = [UInt64](repeating: 0, count: threads)
        var acknowledging = Set<Int>()
        var summary = Summary()

        for round in 1...rounds {
            var context = "concurrent round \(round)/\(rounds), seed \(seed), store \(storePath)"
            let worker = try WorkerProcess(command: "concurrent", store: storePath, seed: seed)
            let delay: Int
            if round % earlyKillEvery == 0 {
                delay = Int.random(in: 0...80, using: &random)
            } else {
                guard worker.stdout.wait(timeout: .seconds(30), until: { $0.hasPrefix("READY") }) else {
                    let outcome = worker.killAndCollect()
                    Issue.record("worker never became ready (\(outcome.termination)); stderr: \(outcome.stderr.suffix(2_000)) — \(context)")
                    return summary
                }
                delay = Int.random(in: killDelay, using: &random)
            }
            usleep(UInt32(delay * 1_000))
            let outcome = worker.killAndCollect()
            context += ", killed after \(delay) ms"
            guard outcome.diedOfSIGKILL else {
                Issue.record("worker ended by itself (\(outcome.termination)) before the kill; stderr: \(outcome.stderr.suffix(2_000)) — \(context)")
                return summary
            }
            summary.kills += 1
            // The last acknowledged commit of each thread: from this run, else what the store held.
            guard let acknowledged = Self.acknowledgements(outcome.lines, present: present, context: context) else { return summary }
            var last = present
            for (thread, index) in acknowledged {
                last[thread] = index
                acknowledging.insert(thread)
            }
            summary.acknowledged += acknowledged.count

            let store: LogStore
            do {
                store = try LogStore.open(at: storePath, options: ConcurrentWorkload.engineOptions(), logger: .quiet)
            } catch {
                Issue.record("store does not open after the kill: \(error) — \(context)")
                return summary
            }
            defer { try? store.close() }
            summary.opened += 1
            let found = Self.check(store, seed: seed, checked: present)
            guard found.problems.isEmpty else {
                summary.mismatches += 1
                Issue.record("store after the kill:\n\(found.problems.joined(separator: "\n")) — \(context)")
                return summary
            }
            for thread in 0..<threads {
                if found.present[thread] < last[thread] {
                    summary.holes += 1
                    Issue.record("thread \(thread): the store holds commits 1…\(found.present[thread]) but 1…\(last[thread]) were acknowledged — \(context)")
                    return summary
                }
                if found.present[thread] > last[thread] + 1 {
                    summary.mismatches += 1
                    Issue.record("thread \(thread): the store holds commits 1…\(found.present[thread]), more than the one in flight after \(last[thread]) acknowledged — \(context)")
                    return summary
                }
                summary.inFlightLanded += found.present[thread] > last[thread] ? 1 : 0
            }
            let report = try store.verify()
            guard report.isSound else {
                Issue.record("verify after the kill: \(report) — \(context)")
                return summary
            }
            summary.verified += 1
            summary.verifyWarnings += report.warnings.count
            summary.lastSequence = store.lastSequence
            try store.close()
            present = found.present
        }
        summary.threadsAcknowledging = acknowledging.count
        // After the last kill, an uninterrupted full compaction must keep every commit,
        // every byte of which is read again.
        let store = try LogStore.open(at: storePath, options: ConcurrentWorkload.engineOptions(), logger: .quiet)
        defer { try? store.close() }
        try store.compact(force: true)
        let found = Self.check(store, seed: seed)
        #expect(found.problems == [] && found.present == present, "after a clean compaction: \(found.problems.joined(separator: "\n"))")
        #expect(try store.verify().isSound)
        return summary
    }

    /// The run's `ACK thread index` lines as (thread, index), checked: after a `READY`
    /// naming each thread's next commit as the store held it, each thread's
    /// acknowledgements consecutive from there. Nil (an issue recorded) otherwise.
    static func acknowledgements(_ lines: [String], present: [UInt64], context: String) -> [(Int, UInt64)]? {
        var next: [UInt64]?
        var acknowledged: [(Int, UInt64)] = []
        for line in lines {
            let parts = line.split(separator: " ")
            if parts.first == "READY", next == nil {
                let starts = parts.dropFirst().compactMap { UInt64($0) }
                guard starts == present.map({ $0 + 1 }) else {
                    Issue.record("worker started at \(starts), the store held \(present) — \(context)")
                    return nil
                }
                next = starts
            } else if parts.count == 3, parts[0] == "ACK", next != nil, let thread = Int(parts[1]), let index = UInt64(parts[2]),
                      thread >= 0, thread < present.count {
                guard index == next?[thread] else {
                    Issue.record("thread \(thread) acknowledged commit \(index), expected \(next?[thread] ?? 0) — \(context)")
                    return nil
                }
                next?[thread] += 1
                acknowledged.append((thread, index))
            } else {
                Issue.record("unexpected worker output \(line) — \(context)")
                return nil
            }
        }
        return acknowledged
    }

    /// Lists the whole store: each thread's commits present (`present[t]` = P when they
    /// are exactly 1…P), and every way the store is not that state of the seed's workload.
    /// The bytes of commits up to `checked[t]` (found whole after an earlier kill) are
    /// not read again: a round reads what it added, or the rounds would grow quadratic.
    static func check(_ store: LogStore, seed: UInt64, checked: [UInt64]? = nil, limit: Int = 20) -> (present: [UInt64], problems: [String]) {
        let threads = ConcurrentWorkload.threads
        var problems: [String] = []
        func note(_ problem: String) { if problems.count < limit { problems.append(problem) } }
        var indices = [[UInt64]](repeating: [], count: threads)
        var heads = [Bool](repeating: false, count: threads)
        do {
            for key in try store.keys() {
                guard let (thread, index) = ConcurrentWorkload.split(key.rawValue) else {
                    note("key \(key.rawValue) belongs to no thread")
                    continue
                }
                if index == 0 { heads[thread] = true } else { indices[thread].append(index) }
            }
        } catch {
            return (Array(repeating: 0, count: threads), ["keys could not be listed: \(error)"])
        }
        var present = [UInt64](repeating: 0, count: threads)
        for thread in 0..<threads {
            let sorted = indices[thread].sorted()
            let count = UInt64(sorted.count)
            present[thread] = count
            if sorted != Array(stride(from: UInt64(1), through: count, by: 1)) {
                let missing = Set(1...max(1, sorted.last ?? 1)).subtracting(sorted).sorted()
                note("thread \(thread): commits present are no prefix: missing \(missing.prefix(10)) below \(sorted.last ?? 0)")
            }
            do {
                let head = try store.get(RecordKey(ConcurrentWorkload.key(thread: thread, index: 0)))
                if count == 0 {
                    if heads[thread] || head != nil { note("thread \(thread): a head key without any data key") }
                } else if head?.value != ConcurrentWorkload.headValue(thread: thread, index: count) {
                    let named = head.flatMap { ValueHeader(decoding: $0.value) }.map { "names commit \($0.transaction)" } ?? "is missing or no header"
                    note("thread \(thread): head key \(named), but commits 1…\(count) are present (a commit landed in part)")
                }
                for index in sorted where index > (checked?[thread] ?? 0) {
                    let key = ConcurrentWorkload.key(thread: thread, index: index)
                    guard let record = try store.get(RecordKey(key)) else {
                        note("thread \(thread): key of commit \(index) listed but not readable")
                        continue
                    }
                    if record.value != ConcurrentWorkload.value(thread: thread, index: index, seed: seed) {
                        note("thread \(thread): commit \(index)'s value differs (\(record.value.count) bytes)")
                    }
                    let blob = ConcurrentWorkload.blob(thread: thread, index: index, seed: seed)
                    guard record.blobs.count == (blob == nil ? 0 : 1) else {
                        note("thread \(thread): commit \(index) has \(record.blobs.count) blob references, expected \(blob == nil ? 0 : 1)")
                        continue
                    }
                    if let blob, let ref = record.blobs.first, try store.readBlob(ref) != blob {
                        note("thread \(thread): commit \(index)'s blob \(ref) differs")
                    }
                }
            } catch {
                note("thread \(thread): read failed: \(error)")
            }
        }
        let commits = present.reduce(0, +)
        // Sequences number commits, and the log holds exactly these.
        if store.lastSequence != commits { note("lastSequence is \(store.lastSequence), but \(commits) commits are present") }
        let live = Int(commits) + present.filter { $0 > 0 }.count
        if store.count != live { note("count is \(store.count), expected \(live)") }
        return (present, problems)
    }
}
