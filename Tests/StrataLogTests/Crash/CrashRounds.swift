import Foundation
import Testing
import StrataTestSupport
@testable import StrataCrashWorker
@testable import StrataLog

/// Kills a worker over and over on one store and checks the crash oracle after each
/// kill (DESIGN.md, "what survives a crash is always a prefix of the acknowledged
/// transactions"): with A the last acknowledged transaction, the reopened store must
/// equal the state after transactions 1…T for T = A or A + 1 (the one in flight may
/// land or not, never in part).
struct CrashRounds {
    var mode: CrashWorker.Mode
    var rounds: Int
    /// Kill this long after the worker said READY (store open), so kills land in
    /// commits, fsyncs, segment and blob-file rolls, compaction and manifest swaps.
    var killDelay: ClosedRange<Int> = 20...300
    /// Every `earlyKillEvery`th round kills 0–80 ms after launch instead, without
    /// waiting, so some kills land in open: recovery's truncations and roll finishing.
    var earlyKillEvery = 6

    struct Summary: CustomStringConvertible {
        var acknowledged = 0
        var inFlightLanded = 0
        var lastTransaction: UInt64 = 0
        var verifyWarnings = 0
        /// For the crash campaign's record (`make crash-campaign`).
        var kills = 0
        var opened = 0
        var verified = 0
        /// Reopened stores missing an acknowledged transaction.
        var holes = 0
        /// Reopened stores holding more than the one in flight, or other contents than the prefix.
        var mismatches = 0

        var description: String {
            "\(acknowledged) transactions acknowledged, the one in flight landed after \(inFlightLanded) kills, store at transaction \(lastTransaction), \(verifyWarnings) warnings from verify"
        }

        var campaignLine: String {
            "kills \(kills), stores opened \(opened), verified \(verified), holes \(holes), mismatches \(mismatches) (\(acknowledged) transactions acknowledged, the one in flight landed \(inFlightLanded) times)"
        }
    }

    func run() throws -> Summary {
        let directory = try TemporaryDirectory("crash-\(mode.rawValue)")
        defer { directory.remove() }
        let storePath = directory.appending("store.strata")
        var random = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 1...UInt64(Int64.max), using: &random)
        var model = CrashModel(seed: seed)
        var summary = Summary()

        for round in 1...rounds {
            let context = "\(mode) round \(round)/\(rounds), seed \(seed), store \(storePath)"
            let worker = try WorkerProcess(mode: mode, store: storePath, seed: seed)
            let delay: Int
            if round % earlyKillEvery == 0 {
                delay = Int.random(in: 0...80, using: &random)
            } else {
                let ready = worker.stdout.wait(timeout: .seconds(30)) { $0.hasPrefix("READY") }
                if !ready {
                    let outcome = worker.killAndCollect()
                    Issue.record("worker never became ready (\(outcome.termination)); stderr: \(outcome.stderr.suffix(2_000)) — \(context)")
                    return summary
                }
                delay = Int.random(in: killDelay, using: &random)
            }
            usleep(UInt32(delay * 1_000))
            let outcome = worker.killAndCollect()
            guard check(outcome, model: model, context: context + ", killed after \(delay) ms") else { return summary }
            summary.kills += 1

            let acknowledged = outcome.acknowledged.last ?? model.applied
            let store: LogStore
            let last: UInt64
            do {
                store = try CrashWorker.openStore(at: storePath, mode: mode, logger: .quiet)
                last = try CrashWorker.lastTransaction(in: store)
            } catch {
                Issue.record("store does not open after the kill: \(error) — \(context)")
                return summary
            }
            defer { try? store.close() }
            summary.opened += 1
            guard last == acknowledged || last == acknowledged + 1 else {
                if last < acknowledged { summary.holes += 1 } else { summary.mismatches += 1 }
                Issue.record("store holds transactions 1…\(last) but 1…\(acknowledged) were acknowledged — \(context)")
                return summary
            }
            model.advance(to: last)
            let problems = model.differences(from: store)
            guard problems.isEmpty else {
                summary.mismatches += 1
                Issue.record("store differs from transactions 1…\(last) (acknowledged \(acknowledged)):\n\(problems.joined(separator: "\n")) — \(context)")
                return summary
            }
            let report = try store.verify()
            guard report.isSound else {
                Issue.record("verify after the kill: \(report) — \(context)")
                return summary
            }
            summary.verified += 1
            summary.verifyWarnings += report.warnings.count
            try store.close()
            summary.acknowledged += outcome.acknowledged.count
            summary.inFlightLanded += last > acknowledged ? 1 : 0
            summary.lastTransaction = last
        }
        try checkAfterCleanCompaction(storePath, model: model)
        return summary
    }

    /// The worker must die of our SIGKILL alone, start where the store left off, and
    /// acknowledge consecutive transactions.
    private func check(_ outcome: WorkerProcess.Outcome, model: CrashModel, context: String) -> Bool {
        guard outcome.diedOfSIGKILL else {
            Issue.record("worker ended by itself (\(outcome.termination)) before the kill; stderr: \(outcome.stderr.suffix(2_000)) — \(context)")
            return false
        }
        guard outcome.unexpected.isEmpty else {
            Issue.record("unexpected worker output \(outcome.unexpected.prefix(5)) — \(context)")
            return false
        }
        if let start = outcome.start, start != model.applied + 1 {
            Issue.record("worker started at transaction \(start), the store held 1…\(model.applied) — \(context)")
            return false
        }
        let first = outcome.start ?? model.applied + 1
        guard outcome.acknowledged == Array(first..<(first + UInt64(outcome.acknowledged.count))) else {
            Issue.record("acknowledgements not consecutive from \(first): \(outcome.acknowledged.prefix(20)) — \(context)")
            return false
        }
        return true
    }

    /// After the last kill: an uninterrupted full compaction in this process must keep
    /// the state, and so must the reopen after it (hints and manifest it wrote).
    private func checkAfterCleanCompaction(_ path: String, model: CrashModel) throws {
        do {
            let store = try CrashWorker.openStore(at: path, mode: mode, logger: .quiet)
            defer { try? store.close() }
            try store.compact(force: true)
            let problems = model.differences(from: store)
            let report = try store.verify()
            #expect(report.isSound, "verify after a clean compaction: \(report)")
            #expect(problems.isEmpty, "after a clean compaction: \(problems.joined(separator: "\n"))")
            try store.close()
        }
        let store = try CrashWorker.openStore(at: path, mode: mode, logger: .quiet)
        defer { try? store.close() }
        let problems = model.differences(from: store)
        #expect(problems.isEmpty, "after reopening the compacted store: \(problems.joined(separator: "\n"))")
    }
}
