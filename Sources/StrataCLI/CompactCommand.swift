import ArgumentParser
import Strata

/// `strata compact STORE [--force]`: rewrites segments with garbage and collects blob garbage.
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "compact", abstract: "Rewrite segments with garbage and reclaim unreferenced blob bytes.")

    @Argument(help: "The store directory.")
    var store: String

    @Flag(help: "Compact every sealed segment and blob file with any garbage.")
    var force = false

    @Flag(help: "First write every record of an older layout (left by lightweight migrations run in place) in the current one, and drop the older layouts.")
    var layouts = false

    func run() throws {
        try reportingFailures {
            // An object store is opened as one, so that compaction writes the records of
            // older layouts it copies in the current layout (FORMAT.md §8, §11.4).
            if try StoreAccess.storedModelIfAny(at: store) != nil {
                let objects = try StoreAccess.openObjectStore(store, readOnly: false)
                defer { try? objects.close() }
                if layouts { print("rewrote \(try objects.rewriteOlderLayouts()) records of older layouts") }
                guard let log = objects.records as? LogStore else { throw CommandFailure.usage("the store is not a segment log") }
                print(try log.compact(force: force))
                if try objects.dropRewrittenLayouts() { print("every record is in its entity's current layout: older layouts dropped") }
            } else {
                if layouts { throw CommandFailure.usage("--layouts needs an object store (the store at \(store) has no model)") }
                var options = LogStoreOptions()
                options.createIfMissing = false
                let log = try LogStore.open(at: store, options: options, logger: CLILogging.logger)
                defer { try? log.close() }
                print(try log.compact(force: force))
            }
        }
    }
}
