import ArgumentParser
import Foundation
import Strata

/// `strata migrate STORE --to MODEL.json [--dry-run] [--allow-data-loss] [--memory-budget 64MiB]`:
/// an inferred (lightweight) migration to a new model, with a progress bar. Custom
/// mappings need Swift code (an `EntityMigrationPolicy`); this command runs what can be
/// inferred and refuses, before writing anything, what cannot.
///
/// It never loses data quietly: before migrating it computes the plan
/// (`ObjectStore.previewMigration`), and when the plan discards stored values (a
/// removed attribute, relationship or entity that holds some) it refuses, naming each
/// `Entity.property` with the count and bytes, unless `--allow-data-loss` is given.
/// `--dry-run` prints the plan and changes nothing.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to a new model file by inferred (lightweight) migration."
    )

    @Argument(help: "The store directory.")
    var store: String

    @Option(name: .long, help: "The JSON model file to migrate to (docs/MODEL.md).")
    var to: String

    @Option(name: .customLong("memory-budget"), help: "Memory for objects in flight, e.g. 64MiB, 512KiB, 1GiB.")
    var memoryBudget = "64MiB"

    @Flag(name: .customLong("dry-run"), help: "Print the plan (added, renamed, removed, with the stored values each removal discards) and change nothing.")
    var dryRun = false

    @Flag(name: .customLong("allow-data-loss"), help: "Migrate even when the plan discards stored values.")
    var allowDataLoss = false

    func run() throws {
        try reportingFailures {
            guard let budget = Self.parseBytes(memoryBudget), budget > 0 else {
                throw CommandFailure.usage("--memory-budget '\(memoryBudget)' is not a size such as 64MiB")
            }
            let target = try StoreAccess.loadModelFile(to)
            let before = try StoreAccess.requireModel(at: store)
            if before.versionHash == target.versionHash {
                print("store \(store) is already at this model (hash \(target.versionHash)); nothing to do")
                return
            }
            var previewOptions = StoreOptions()
            previewOptions.logger = CLILogging.logger
            let preview = try ObjectStore.previewMigration(at: store, to: target, options: previewOptions)
            // A damaged store is not migrated: the migration would carry the damage into
            // a store that then says it is at the new model.
            let soundness = try StoreAccess.openLog(store)
            let damage = try soundness.verify()
            try soundness.close()
            if !damage.isSound {
                let first = damage.problems.prefix(3).map(\.description).joined(separator: "; ")
                let refusal = "the store does not verify (\(damage.problems.count) problem(s): \(first)); run `strata verify \(store)` for all of them"
                if dryRun {
                    print("migration plan (inferred), nothing written: " + preview.summary)
                    print("a migration would be refused: \(refusal)")
                    throw ExitCode(1)
                }
                throw CommandFailure("refusing to migrate \(store): \(refusal). The store is unchanged.")
            }
            if dryRun {
                print("migration plan (inferred), nothing written: " + preview.summary)
                if preview.discardsData {
                    print("discards stored values (needs --allow-data-loss): \(preview.dataLossSummary)")
                } else {
                    print("discards no stored value")
                }
                return
            }
            if preview.discardsData && !allowDataLoss {
                throw CommandFailure("""
                    refusing to migrate \(store): the inferred migration discards stored values: \(preview.dataLossSummary). \
                    The store is unchanged. See the whole plan with --dry-run; a custom mapping (Swift code) can keep \
                    the values; --allow-data-loss migrates anyway.
                    """)
            }
            if preview.discardsData {
                Terminal.error("warning: discarding stored values as allowed: \(preview.dataLossSummary)")
            }
            var options = StoreOptions()
            // The tool moves transformable bytes as they are; it never decodes them.
            options.requiresValueTransformers = false
            options.logger = CLILogging.logger
            options.migration = .inferred
            options.migrationMemoryBudget = budget
            options.migrationProgress = { progress in
                Terminal.progress("\(progress.pass.rawValue) \(progress.entityMapping)", done: progress.done, total: progress.total)
            }
            let started = ContinuousClock.now
            let migrated = try ObjectStore(at: store, model: target, options: options)
            let elapsed = ContinuousClock.now - started
            let report = try migrated.verify()
            try migrated.close()
            print("migrated \(store) from model hash \(before.versionHash) to \(target.versionHash) in \(Terminal.seconds(elapsed)); verify: \(report.isSound ? "sound" : "\(report.problems.count) problems")")
            if !report.isSound { throw CommandFailure("the migrated store does not verify: \(report)") }
        }
    }

    /// "64MiB", "512KiB", "1GiB", "1000000" → bytes.
    static func parseBytes(_ text: String) -> Int? {
        let units: [(String, Int)] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("GB", 1_000_000_000), ("MB", 1_000_000), ("KB", 1_000), ("B", 1)]
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            // A count past Int's range is no figure (nil, a usage error), not a trap.
            return Int(trimmed.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)).flatMap { count in
                let (bytes, overflow) = count.multipliedReportingOverflow(by: factor)
                return overflow ? nil : bytes
            }
        }
        return Int(trimmed)
    }
}
