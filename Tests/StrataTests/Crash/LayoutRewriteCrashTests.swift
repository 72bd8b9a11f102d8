import Foundation
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataCrashWorker

/// A SIGKILL at random moments of a compaction that rewrites records of an older layout
/// in the current one and then drops the layout: the store reopens holding every
/// object as it was, sound, with every layout a record uses still in its table, and
/// the next compaction finishes the work. Serialized: kill timing means more without
/// a rival run.
@Suite(.serialized) struct LayoutRewriteCrashTests {
    static let rounds = 12
    static let seed: UInt64 = 2_001
    /// Every third employee gets a nickname after the migration: records of both layouts.
    static func nickname(_ index: Int) -> String? { index % 3 == 0 ? "nick \(index)" : nil }

    /// Scenario 1's v1 store, migrated in place to v1-plus, a third of it written again
    /// in the new layout.
    static func buildStore(at path: String) throws {
        try MigrationWorkload.createV1Store(at: path, seed: seed)
        var options = MigrationWorkload.options(logger: .quiet)
        let v1 = try MigrationWorkload.v1(), plus = try MigrationWorkload.v1Plus()
        options.migration = .plan(MigrationPlan(models: [v1, plus], stages: [.lightweight(from: v1, to: plus)]))
        let store = try ObjectStore(at: path, model: plus, options: options)
        defer { try? store.close() }
        let context = store.newContext()
        for employee in try context.fetch(FetchRequest(entityName: "Employee")) {
            if let nickname = nickname(try index(of: employee)) { try employee.setValue(nickname, forKey: "nickname") }
        }
        try context.save()
        #expect(store.schema.layoutTable.holdsOlderLayouts, "the store holds records of the older layout")
    }

    /// The employee's index in the seed's store, from its name ("Employee N of SEED").
    static func index(of employee: ManagedObject) throws -> Int {
        let name = try employee.string("name") ?? ""
        guard let index = name.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw WorkerFailure("employee named \(name) has no index")
        }
        return index
    }

    /// Every way the store at `path` is not the built one: objects, nicknames, soundness.
    /// Whether its table still holds the older layout is returned beside them.
    static func check(_ path: String) throws -> (problems: [String], olderLayouts: Bool) {
        let store = try ObjectStore(at: path, model: MigrationWorkload.v1Plus(), options: MigrationWorkload.options(logger: .quiet))
        defer { try? store.close() }
        let context = store.newContext()
        let employees = try context.fetch(FetchRequest(entityName: "Employee"))
        var problems = try MigrationCrashOracle.checkEmployees(employees, seed: seed) { try $0.data("photo") }
        problems += try MigrationCrashOracle.checkDepartments(context, seed: seed)
        for employee in employees where try employee.string("nickname") != nickname(try index(of: employee)) {
            problems.append("\(try employee.string("name") ?? "?"): nickname \(try employee.string("nickname") ?? "nil")")
        }
        let report = try store.verify()
        if !report.isSound { problems.append("verify: \(report)") }
        return (Array(problems.prefix(20)), store.schema.layoutTable.holdsOlderLayouts)
    }

    @Test func killedLayoutRewriteKeepsEveryObjectAndTheNextCompactionFinishes() throws {
        let directory = try TemporaryDirectory("layout-rewrite-crash")
        defer { directory.remove() }
        let template = directory.appending("template")
        try Self.buildStore(at: template)
        // An uninterrupted run: the worker works, and how long the compaction takes.
        let measured = directory.appending("measured")
        try FileManager.default.copyItem(atPath: template, toPath: measured)
        let (outcome, span) = try Self.run(measured, killAfter: nil)
        guard outcome.exitedCleanly, outcome.lines.first == "COMPACTING", outcome.lines.last == "COMPACTED",
              outcome.lines.contains("SWAP 2") else {
            Issue.record("uninterrupted run ended by \(outcome.termination), printed \(outcome.lines): \(outcome.stderr)")
            return
        }
        let clean = try Self.check(measured)
        #expect(clean.problems == [] && !clean.olderLayouts, "uninterrupted: \(clean)")
        var random = SeededRandom(seed: 0x1A70)
        var during = 0, afterASwap = 0, layoutsLeft = 0
        for round in 0..<Self.rounds {
            let path = directory.appending("round-\(round)")
            try FileManager.default.copyItem(atPath: template, toPath: path)
            // Every other kill spread from the first line to a fifth past the measured
            // end; the others within 2 ms of the second step's swap line, with the first
            // step swapped in (a window a uniform delay hits seldom, and a loaded machine
            // stretches).
            let line = round % 2 == 0 ? "COMPACTING" : "SWAP 2"
            let delay = Duration.microseconds(random.int(in: 0...(round % 2 == 0 ? Int(span.microseconds * 12 / 10) : 2_000)))
            let (outcome, _) = try Self.run(path, killAfter: delay, line: line)
            let context = "round \(round + 1), killed \(delay.microseconds) µs after \(line), printed \(outcome.lines)"
            guard outcome.diedOfSIGKILL || outcome.exitedCleanly else {
                Issue.record("\(context): the worker ended by \(outcome.termination): \(outcome.stderr)")
                continue
            }
            if outcome.diedOfSIGKILL && !outcome.lines.contains("COMPACTED") {
                during += 1
                // `SWAP n` is printed as step n's swap begins: step 1's is done by `SWAP 2`.
                if outcome.lines.contains("SWAP 2") { afterASwap += 1 }
            }
            let reopened = try Self.check(path)
            #expect(reopened.problems == [], "\(context): \(reopened.problems)")
            if reopened.olderLayouts { layoutsLeft += 1 }
            // The next compaction finishes the rewrite and drops the layout.
            do {
                let store = try ObjectStore(at: path, model: MigrationWorkload.v1Plus(), options: MigrationWorkload.options(logger: .quiet))
                try store.records.compact(force: false)
                _ = try store.dropRewrittenLayouts()
                try store.close()
            }
            let finished = try Self.check(path)
            #expect(finished.problems == [] && !finished.olderLayouts, "\(context): after the next compaction \(finished)")
            try FileManager.default.removeItem(atPath: path)
        }
        print("layout rewrite crash: \(Self.rounds) rounds, \(during) killed during the compaction (\(afterASwap) after a step's swap), \(layoutsLeft) left the older layout for the next compaction; uninterrupted compaction \(span.microseconds) µs")
        // Kills that missed the compaction would prove nothing.
        #expect(during >= 1 && afterASwap >= 1, "\(during) kills during the compaction, \(afterASwap) after a swap")
    }

    /// Runs the worker on `path`; with `killAfter`, kills it that long after it printed
    /// `line`. Returns its outcome and, for a run not killed, how long after
    /// `COMPACTING` it printed `COMPACTED`.
    static func run(_ path: String, killAfter delay: Duration?, line: String = "COMPACTING") throws -> (MigrationCrashProcess.Outcome, Duration) {
        let worker = try MigrationCrashProcess(command: "layouts", store: path, seed: seed)
        var compacting: ContinuousClock.Instant?
        var compacted: ContinuousClock.Instant?
        var seen: ContinuousClock.Instant?
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let finished = worker.stdout.finished
            let lines = worker.stdout.lines
            if compacting == nil, lines.contains("COMPACTING") { compacting = .now }
            if compacted == nil, lines.contains("COMPACTED") { compacted = .now }
            if seen == nil, lines.contains(line) { seen = .now }
            if let seen, let delay, ContinuousClock.now - seen >= delay { return (worker.killAndCollect(), .zero) }
            if finished || compacted != nil && delay == nil { break }
            usleep(50)
        }
        let outcome = delay == nil ? worker.waitAndCollect() : worker.killAndCollect()
        return (outcome, compacting.flatMap { start in compacted.map { $0 - start } } ?? .zero)
    }
}

extension Duration {
    fileprivate var microseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }
}
