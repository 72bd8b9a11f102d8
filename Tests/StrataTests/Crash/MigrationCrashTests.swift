import Foundation
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataCrashWorker

/// Scenario 6: "a SIGKILL of a child process at random moments of a migration
/// (many rounds) leaves a store that opens either fully at the old version or fully at
/// the new one, never between". Serialized: kill timing means more without a rival run.
@Suite(.serialized) struct MigrationCrashTests {
    static let rounds = 30
    static let seeds: [UInt64] = [1_001, 1_002]

    /// Where a run prints its lines, from its launch: the kill schedule's yardstick.
    struct Timeline {
        var migrating: Duration
        /// Stage 1 done: it builds `name`'s uniqueness rule in place.
        var builtRule: Duration
        var swapping: Duration
        var migrated: Duration
        var exited: Duration
    }

    /// How a round picks its kill moment.
    enum Kill: CustomStringConvertible {
        /// This long after launch.
        case after(Duration)
        /// This long after the worker printed the line.
        case afterLine(String, Duration)

        var description: String {
            switch self {
            case .after(let delay): "\(delay.milliseconds) ms after launch"
            case .afterLine(let line, let delay): "\(delay.microseconds) µs after \(line)"
            }
        }
    }

    @Test func killedMigrationLeavesTheStoreFullyAtTheOldOrTheNewVersion() throws {
        let result = try killRounds(Self.rounds)
        print(result.report)
        // Both outcomes, or the kills never straddled the swap and proved half of nothing.
        #expect(result.v1 >= 1 && result.v2 >= 1, "rounds ended \(result.v1) at v1 and \(result.v2) at v2: the kills must land both before and after the swap")
        #expect(result.duringRuleBuild >= 1, "no kill landed while stage 1 built the uniqueness rule")
    }

    /// The migration's share of `make crash-campaign` (25% of `STRATA_CRASH_CAMPAIGN`).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["STRATA_CRASH_CAMPAIGN"] != nil))
    func crashCampaignMigration() throws {
        let total = ProcessInfo.processInfo.environment["STRATA_CRASH_CAMPAIGN"].flatMap(Int.init) ?? 0
        let rounds = max(5, total * 25 / 100)
        let result = try killRounds(rounds)
        print("crash-campaign migration: kills \(result.kills), stores opened \(result.opened), verified \(result.verified), holes n/a (old-or-new oracle), mismatches \(result.mismatches) (\(rounds) rounds, \(result.v1) at v1, \(result.v2) at v2, \(result.rounds - result.kills) finished before the kill), \(result.seconds) s")
        #expect(result.rounds == rounds && result.mismatches == 0 && result.opened == rounds)
        #expect(result.v1 >= 1 && result.v2 >= 1 && result.duringRuleBuild >= 1)
    }

    /// What a run of kill rounds saw.
    struct RoundsResult {
        var rounds = 0
        var kills = 0
        var opened = 0
        var verified = 0
        /// Stores at a version whose contents were not exactly that version's (a missing
        /// object counts here: the old-or-new oracle has no prefix, so no separate holes).
        var mismatches = 0
        var v1 = 0
        var v2 = 0
        /// Kills after `MIGRATING` and before stage 1 reported its rule built.
        var duringRuleBuild = 0
        var seconds: Int64 = 0
        var report = ""
    }

    /// `rounds` kills of a migration, each on a fresh copy of a v1 store, judged by
    /// `MigrationCrashOracle`.
    func killRounds(_ rounds: Int) throws -> RoundsResult {
        let directory = try TemporaryDirectory("migration-crash")
        defer { directory.remove() }
        let began = ContinuousClock.now
        // Twice, keeping the slower: the first run also pays for cold caches, and a
        // schedule cut to a lucky fast run would never reach past the swap.
        let runs = try [measureUninterruptedRun(in: directory), measureUninterruptedRun(in: directory)]
        let timeline = runs[0].migrated > runs[1].migrated ? runs[0] : runs[1]
        var random = SeededRandom(seed: 0x5CE6)
        let schedule = Self.schedule(timeline, rounds: rounds, random: &random)
        var result = RoundsResult()
        // Each round starts from a fresh v1 store: a copy of one built once per seed,
        // holding what building it again would, at a fraction of the time.
        var templates: [String] = []
        for seed in Self.seeds {
            templates.append(directory.appending("v1-\(seed)"))
            try MigrationWorkload.createV1Store(at: directory.appending("v1-\(seed)"), seed: seed)
        }
        var outcomes: [MigrationCrashOracle.Version: Int] = [:]
        var resumed = 0
        var log: [String] = []
        for (round, kill) in schedule.enumerated() {
            let seed = Self.seeds[round % Self.seeds.count]
            let path = directory.appending("round-\(round)")
            let context = "round \(round + 1)/\(schedule.count), seed \(seed), killed \(kill), store \(path)"
            try FileManager.default.copyItem(atPath: templates[round % templates.count], toPath: path)
            let outcome = try run(path, seed: seed, kill: kill)
            guard outcome.diedOfSIGKILL || (outcome.exitedCleanly && outcome.lines.contains("MIGRATED")) else {
                Issue.record("\(context): the worker ended by \(outcome.termination), printed \(outcome.lines): \(outcome.stderr)")
                return result
            }
            result.rounds += 1
            if outcome.diedOfSIGKILL { result.kills += 1 }
            if outcome.diedOfSIGKILL, outcome.lines.contains("MIGRATING"), !outcome.lines.contains("IN PLACE 1") { result.duringRuleBuild += 1 }
            // The crashed store as the kill left it, before any open cleans it up: the
            // migration is resumed on this copy, so it starts from the raw crash state.
            let crashed = path + "-crashed"
            try FileManager.default.copyItem(atPath: path, toPath: crashed)
            let (version, problems) = MigrationCrashOracle.check(path, seed: seed)
            #expect(problems == [], "\(context): opened at \(version?.rawValue ?? "no version") but \(problems)")
            guard let version else { return result }
            result.opened += 1
            if problems.isEmpty { result.verified += 1 } else { result.mismatches += 1 }
            outcomes[version, default: 0] += 1
            log.append("\(version.rawValue) (\(kill))")
            // What the worker printed bounds the outcome: no swap begun means v1, a
            // returned open means v2.
            if !outcome.lines.contains("SWAPPING") { #expect(version == .v1, "\(context): v2 before the swap began") }
            if outcome.lines.contains("MIGRATED") { #expect(version == .v2, "\(context): v1 after the migration returned") }
            // A store left at v1 must still migrate, in this process, to the same v2: after
            // every kill inside the swap (leftovers of a half-done swap), and every third
            // other one (migrating costs a round's worth of time).
            if version == .v1, outcome.lines.contains("SWAPPING") || outcomes[.v1, default: 0] % 3 == 1 {
                let store = try ObjectStore(at: crashed, model: MigrationWorkload.v2(), options: MigrationWorkload.migrationOptions(logger: .quiet))
                try store.close()
                #expect(try MigrationCrashOracle.checkV2(crashed, seed: seed) == [], "\(context): migrating after the crash")
                resumed += 1
            }
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.removeItem(atPath: crashed)
        }
        let v1 = outcomes[.v1, default: 0], v2 = outcomes[.v2, default: 0]
        result.v1 = v1
        result.v2 = v2
        result.seconds = (ContinuousClock.now - began).components.seconds
        result.report = ("migration crash: \(schedule.count) rounds, \(v1) at v1 (\(resumed) of them migrated afterwards), \(v2) at v2, \(result.duringRuleBuild) killed while the uniqueness rule was built; full run \(timeline.migrated.milliseconds) ms (MIGRATING at \(timeline.migrating.milliseconds) ms, IN PLACE 1 at \(timeline.builtRule.milliseconds) ms, SWAPPING at \(timeline.swapping.milliseconds) ms); \((ContinuousClock.now - began).milliseconds) ms in all\n  " + log.joined(separator: "\n  "))
        return result
    }

    /// The oracle is no rubber stamp: it accepts the seed's stores at both versions and
    /// refuses another seed's, so a pass above means the stores were checked.
    @Test func oracleTellsTheSeedsStoreFromAnothersAtBothVersions() throws {
        let directory = try TemporaryDirectory("migration-crash-oracle")
        defer { directory.remove() }
        let path = directory.appending("store")
        try MigrationWorkload.createV1Store(at: path, seed: 1)
        #expect(try MigrationCrashOracle.checkV1(path, seed: 1) == [])
        #expect(try MigrationCrashOracle.checkV1(path, seed: 2) != [])
        #expect(MigrationCrashOracle.check(path, seed: 1).version == .v1)
        let store = try ObjectStore(at: path, model: MigrationWorkload.v2(), options: MigrationWorkload.migrationOptions(logger: .quiet))
        try store.close()
        let (version, problems) = MigrationCrashOracle.check(path, seed: 1)
        #expect(version == .v2)
        #expect(problems == [])
        #expect(try MigrationCrashOracle.checkV2(path, seed: 2) != [])
    }

    /// A run to completion: checks the worker migrates at all, and times its lines.
    func measureUninterruptedRun(in directory: TemporaryDirectory) throws -> Timeline {
        let path = directory.appending("uninterrupted")
        let seed: UInt64 = 999
        try MigrationWorkload.createV1Store(at: path, seed: seed)
        let worker = try MigrationCrashProcess(store: path, seed: seed)
        var seen: [String: Duration] = [:]
        while true {
            // `finished` read before the lines: a worker that finished between the two
            // reads would otherwise leave its last lines unseen (a fast migration did).
            let finished = worker.stdout.finished
            for line in worker.stdout.lines where seen[line] == nil { seen[line] = .now - worker.started }
            if seen["MIGRATED"] != nil || finished { break }
            usleep(200)
        }
        let outcome = worker.waitAndCollect()
        let exited = ContinuousClock.now - worker.started
        // Stages 1 and 3 run in place (the first on the live store, in memory until the
        // swap; the third on the staging store), stage 2 rewrites.
        guard outcome.exitedCleanly, outcome.lines == ["MIGRATING", "IN PLACE 1", "IN PLACE 3", "SWAPPING", "MIGRATED"],
              let migrating = seen["MIGRATING"], let builtRule = seen["IN PLACE 1"], let swapping = seen["SWAPPING"], let migrated = seen["MIGRATED"] else {
            throw WorkerFailure("uninterrupted migration ended by \(outcome.termination), printed \(outcome.lines): \(outcome.stderr)")
        }
        let problems = try MigrationCrashOracle.checkV2(path, seed: seed)
        guard problems == [] else { throw WorkerFailure("uninterrupted migration: \(problems)") }
        try FileManager.default.removeItem(atPath: path)
        return Timeline(migrating: migrating, builtRule: builtRule, swapping: swapping, migrated: migrated, exited: exited)
    }

    /// One kill in five after `MIGRATING`: alternately in the migration's first instants
    /// and anywhere in stage 1 (which builds a uniqueness rule over every record); one in
    /// five inside the swap (the few milliseconds a uniform delay rarely hits), the rest
    /// spread evenly over the whole run, from launch to a little past `MIGRATED`.
    static func schedule(_ timeline: Timeline, rounds: Int, random: inout SeededRandom) -> [Kill] {
        let spread = (0..<rounds).filter { $0 % 5 > 1 }.count
        // Past the measured times (a fifth, half for the short swap): a loaded machine
        // runs slower than the measurement, and the last kills must reach past the swap.
        let whole = Int(timeline.migrated.microseconds * 12 / 10)
        let swap = max(1, Int((timeline.migrated - timeline.swapping).microseconds * 15 / 10))
        let ruleBuild = max(1, Int((timeline.builtRule - timeline.migrating).microseconds))
        var kills: [Kill] = []
        var slot = 0
        for round in 0..<rounds {
            switch round % 5 {
            case 0: kills.append(.afterLine("MIGRATING", .microseconds(random.int(in: 0...(round % 10 == 0 ? 2_000 : ruleBuild)))))
            case 1: kills.append(.afterLine("SWAPPING", .microseconds(random.int(in: 0...swap))))
            default:
                // Stratified: slot k of `spread` draws within its own k-th of the run.
                let low = whole * slot / spread, high = whole * (slot + 1) / spread
                kills.append(.after(.microseconds(random.int(in: low...max(low, high - 1)))))
                slot += 1
            }
        }
        return kills
    }

    /// Starts the worker on `path` and kills it at `kill`'s moment.
    func run(_ path: String, seed: UInt64, kill: Kill) throws -> MigrationCrashProcess.Outcome {
        let worker = try MigrationCrashProcess(store: path, seed: seed)
        switch kill {
        case .after(let delay):
            let deadline = worker.started + delay
            if deadline > .now { usleep(UInt32((deadline - .now).microseconds)) }
        case .afterLine(let line, let delay):
            // A worker that ends without the line is judged by its outcome anyway.
            if worker.stdout.wait(for: line, timeout: .seconds(30)) { usleep(UInt32(delay.microseconds)) }
        }
        return worker.killAndCollect()
    }
}

extension Duration {
    fileprivate var microseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }
    fileprivate var milliseconds: Int64 { microseconds / 1_000 }
}
