import Foundation
import StrataLog

/// Checks uniqueness rules a lightweight stage adds whose terms the records carry
/// already (an indexed attribute made unique), or that no pass over the records
/// builds: every object in a rule's scope is read and handed to a
/// ``UniquenessCheck``, which sorts the rules' terms as packed runs and confirms equal
/// ones with the model's equality. Nothing is written to the store.
struct UniquenessScan {
    /// Where sorted runs go when the pairs outgrow `budget`: a directory of its own
    /// under `directory`, removed when the scan ends.
    struct Scratch {
        var fileSystem: any FileSystem
        var directory: String
        /// Bytes of (term, key) pairs held in memory before a sorted run is spilled.
        var budget: Int
        /// What the block cache may hold while an in-place pass reads every record once
        /// (`InPlaceMigration.buildIndexes`): it reads each index block once, in key
        /// order, and its commit looks the same keys up in the same order, so a small
        /// cache serves both; the migration's whole share would fill with index blocks
        /// that nothing reads again.
        var passCacheBytes: Int

        init(fileSystem: any FileSystem, directory: String, budget: Int, passCacheBytes: Int = 1 << 20) {
            self.fileSystem = fileSystem
            self.directory = directory
            self.budget = budget
            self.passCacheBytes = passCacheBytes
        }

        /// The store's file system, its scratch directory, a thirty-second of its
        /// budget: the sort spills runs past it, so it bounds memory rather than saving
        /// time (a few spilled runs cost little beside the pass), and the pass holds it
        /// while the migration's cache fills.
        init(_ options: StoreOptions) {
            fileSystem = options.fileSystem ?? POSIXFileSystem()
            var directory = options.scratchDirectory ?? ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
            while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
            self.directory = directory
            budget = max(4096, options.migrationMemoryBudget / 32)
            passCacheBytes = max(256 << 10, options.migrationMemoryBudget / 64)
        }
    }

    /// A rule the stage adds, with the names its message and error context use.
    struct Rule {
        let constraint: UniqueConstraint
        /// The destination model's version hash and the source's, for the error context.
        let sourceHash: String
        let destinationHash: String
    }

    let schema: StoreSchema
    let records: any RecordStore
    let scratch: Scratch

    /// - Throws: `.uniquenessViolation` naming the rule (`entity`, `properties`), the
    ///   `value` and both `objects`, the store unchanged; storage errors; `.corrupt`.
    func check(_ rules: [Rule]) throws {
        guard !rules.isEmpty else { return }
        var check = UniquenessCheck(rules: rules, schema: schema, records: records, scratch: scratch)
        defer { check.discard() }
        let tags = Set(rules.flatMap(\.constraint.scopeTags)).sorted()
        for tag in tags {
            let bound = rules.indices.filter { rules[$0].constraint.scopeTags.contains(tag) }
            try InPlaceMigration.scanOnce(records, StoreSchema.range(tag: tag)) { batch in
                for record in batch {
                    for rule in bound {
                        guard let values = try ObjectStore.storedValues(of: record, attributes: rules[rule].constraint.attributes, schema: schema,
                                                                        readBlob: { try records.readBlob($0) }) else { continue }
                        try check.add(rule: rule, values: values, key: record.key)
                    }
                }
            }
        }
        try check.finish()
    }
}
