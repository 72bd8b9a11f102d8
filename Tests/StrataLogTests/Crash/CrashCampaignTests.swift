import Foundation
import Testing
import StrataTestSupport
@testable import StrataCrashWorker
@testable import StrataLog

/// The engine's share of `make crash-campaign` (docs/FUZZING.md): SIGKILLs of a worker
/// committing transactions, and of one compacting while it commits, with the prefix
/// oracle of `CrashRounds`. Runs only when `STRATA_CRASH_CAMPAIGN` gives the campaign's
/// total kills (30% here for commits, 25% for compaction); the suite's rounds in
/// `RealCrashTests` run in every `make test`.
@Suite(.serialized) struct CrashCampaignTests {
    static let totalKills = ProcessInfo.processInfo.environment["STRATA_CRASH_CAMPAIGN"].flatMap(Int.init)

    @Test(.enabled(if: totalKills != nil)) func commitsKilledAtRandom() throws {
        try Self.campaign(mode: .write, kills: max(1, (Self.totalKills ?? 0) * 30 / 100))
    }

    @Test(.enabled(if: totalKills != nil)) func compactionsKilledAtRandom() throws {
        try Self.campaign(mode: .compact, kills: max(1, (Self.totalKills ?? 0) * 25 / 100))
    }

    /// Several stores of a few dozen rounds each: a store's log grows with every round,
    /// and a fresh one makes early kills land in young stores again.
    static func campaign(mode: CrashWorker.Mode, kills: Int) throws {
        let began = ContinuousClock.now
        var total = CrashRounds.Summary()
        var remaining = kills
        while remaining > 0 {
            let rounds = min(remaining, 40)
            let summary = try CrashRounds(mode: mode, rounds: rounds).run()
            total.kills += summary.kills
            total.opened += summary.opened
            total.verified += summary.verified
            total.holes += summary.holes
            total.mismatches += summary.mismatches
            total.acknowledged += summary.acknowledged
            total.inFlightLanded += summary.inFlightLanded
            remaining -= rounds
            if summary.kills < rounds { break }
        }
        print("crash-campaign \(mode.rawValue == "write" ? "save" : "compaction"): \(total.campaignLine), \((ContinuousClock.now - began).components.seconds) s")
        #expect(total.kills == kills && total.holes == 0 && total.mismatches == 0 && total.verified == total.kills)
    }
}
