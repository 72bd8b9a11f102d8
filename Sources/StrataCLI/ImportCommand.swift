import ArgumentParser
import Foundation
import Strata

/// `strata import STORE [--file F] [--batch N]`: JSON Lines into a store, with the
/// store's own model (see `JSONLines` for values and `Importer` for how references
/// and batches work).
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import JSON Lines objects (from a file or standard input), one transaction per batch.",
        discussion: """
        One object a line: {"@entity": "Employee", "@ref": "ada", "name": "Ada", "department": {"@ref": "sales"}}.
        Relationships name targets as {"@ref": NAME} (a name defined by any line of the import, before or after)
        or {"@id": "strata://…"} (the @id of a line of this import, as export writes them, else an object of the store);
        to-many relationships take a list. Binary values are {"@base64": "…"}, dates ISO 8601.
        Every line is checked before anything is written; a batch that fails at save is not committed.
        """
    )

    @Argument(help: "The store directory (made with `strata create`).")
    var store: String

    @Option(name: .long, help: "The JSON Lines file (default: standard input).")
    var file: String?

    @Option(name: .long, help: "Lines per transaction.")
    var batch = 1_000

    @Option(name: .long, help: "The longest line accepted, in bytes (default 64 MiB, the most one record holds); a longer line fails the import before anything is written.")
    var maxLineBytes = LineReader.defaultMaximumLineLength

    func validate() throws {
        guard (1...1_000_000).contains(batch) else { throw ValidationError("--batch must be 1…1,000,000 lines a transaction, not \(batch)") }
        guard maxLineBytes >= 1 else { throw ValidationError("--max-line-bytes must be at least 1") }
    }

    func run() throws {
        try reportingFailures {
            let objectStore = try StoreAccess.openObjectStore(store, readOnly: false)
            defer { try? objectStore.close() }
            let importer = Importer(store: objectStore, batchSize: batch)

            var spool: InputSpool?
            defer { spool?.remove() }
            let secondPass: String
            if let file {
                try importer.scan(try LineReader(path: file, maximumLineLength: maxLineBytes), spool: nil)
                secondPass = file
            } else {
                let copy = try InputSpool()
                spool = copy
                try importer.scan(LineReader(descriptor: STDIN_FILENO, maximumLineLength: maxLineBytes), spool: copy)
                try copy.finish()
                secondPass = copy.path
            }
            try importer.insert(path: secondPass, maximumLineLength: maxLineBytes)
            // A bulk load ends with its last segment sealed, as a WAL is checkpointed:
            // the next open then replays nothing (rebuilding the active segment's index
            // from its records would slow the first command run on the store).
            let imported = "imported \(importer.committedObjects) objects in \(importer.transactions) transaction(s) into \(store)"
            if importer.committedObjects > 0 {
                do {
                    try (objectStore.records as? LogStore)?.sealActiveSegment()
                } catch {
                    // Every batch is committed: only the tidying failed. Said so, lest the
                    // import be run again and its objects be there twice.
                    throw CommandFailure("\(imported) — all committed; sealing the last segment afterwards failed, so do not import them again: \(error)")
                }
            }
            print(imported)
        }
    }
}
