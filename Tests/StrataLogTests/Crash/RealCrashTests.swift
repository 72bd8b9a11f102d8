import Foundation
import Testing
import StrataTestSupport
@testable import StrataCrashWorker
@testable import StrataLog

/// Real crashes: a child process writes transactions in a loop and prints each
/// acknowledged commit; the test kills it with SIGKILL at random moments. Serialized:
/// the kill timing means more when the two runs do not fight for two cores.
@Suite(.serialized) struct RealCrashTests {
    @Test func killedWriterKeepsEveryAcknowledgedTransactionAndNoPartOfOthers() throws {
        let summary = try CrashRounds(mode: .write, rounds: 25).run()
        print("real-crash write mode, 25 rounds: \(summary)")
        // Guards against a vacuous pass: the rounds must actually have written.
        #expect(summary.acknowledged >= 25, "only \(summary.acknowledged) transactions acknowledged in 25 rounds")
    }

    @Test func killedWriterWhileCompactingKeepsEveryAcknowledgedTransaction() throws {
        let summary = try CrashRounds(mode: .compact, rounds: 15).run()
        print("real-crash compact mode, 15 rounds: \(summary)")
        #expect(summary.acknowledged >= 15, "only \(summary.acknowledged) transactions acknowledged in 15 rounds")
    }

    @Test func killedWriterDuringChunkedCommitsKeepsEveryAcknowledgedTransaction() throws {
        let summary = try CrashRounds(mode: .bulk, rounds: 20).run()
        print("real-crash bulk mode, 20 rounds: \(summary)")
        #expect(summary.acknowledged >= 20, "only \(summary.acknowledged) transactions acknowledged in 20 rounds")
    }

    /// The oracle itself: an uncrashed in-process run of the same workload equals the
    /// model after every transaction, and the model one transaction ahead does not —
    /// so a pass above means something.
    @Test func crashOracleMatchesAnUncrashedRunAndRejectsAnotherPrefix() throws {
        let directory = try TemporaryDirectory("crash-oracle")
        defer { directory.remove() }
        let seed: UInt64 = 42
        let worker = CrashWorker(mode: .write, path: directory.path, seed: seed)
        let store = try CrashWorker.openStore(at: directory.path)
        defer { try? store.close() }
        var model = CrashModel(seed: seed)
        for n in UInt64(1)...40 {
            #expect(try store.commit(try worker.batch(for: n, in: store)) == n)
            model.advance(to: n)
            if n % 10 == 0 {
                #expect(model.differences(from: store) == [], "after transaction \(n)")
            }
        }
        #expect(try CrashWorker.lastTransaction(in: store) == 40)
        let report = try store.verify()
        #expect(report.isSound, "\(report)")
        var ahead = model
        ahead.advance(to: 41)
        #expect(!ahead.differences(from: store).isEmpty)
    }

    @Test func workloadIsDeterministicAndSpansBlocksAndBlobs() {
        let seed: UInt64 = 7
        let transactions = (UInt64(1)...300).map { CrashWorkload.transaction($0, seed: seed) }
        #expect(transactions == (UInt64(1)...300).map { CrashWorkload.transaction($0, seed: seed) })
        let operations = transactions.joined()
        #expect(operations.contains { if case .delete = $0 { true } else { false } })
        #expect(operations.contains { if case let .put(_, size, _) = $0 { size > CrashWorkload.options().blockSize } else { false } })
        #expect(operations.contains { if case let .put(_, _, blobs) = $0 { blobs.contains { $0.size > 8_000 } } else { false } })
        let value = CrashWorkload.value(seed: seed, transaction: 9, key: 3, size: 100)
        #expect(value.count == 100)
        #expect(ValueHeader(decoding: value) == ValueHeader(transaction: 9, key: 3, size: 100))
    }
}
