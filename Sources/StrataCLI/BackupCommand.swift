import ArgumentParser
import Foundation
import Strata

/// `strata backup STORE DEST`: a consistent copy of the store in a new directory.
/// Immutable files are hard-linked when DEST is on the store's file system.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a store, as of its last transaction, into a new directory (hard-linking files that never change when on the same file system).",
        discussion: "The command takes the store's write lock when it is free. When another process has the store open for writing, it opens it read-only and copies it as of its last committed transaction while that process goes on; a compaction there that removes a file being copied makes the backup fail, leaving nothing at DEST (run it again). From inside that process, ObjectStore.backup(to:) never meets that."
    )

    @Argument(help: "The store directory.")
    var store: String

    @Argument(help: "The backup's directory; it must not exist.")
    var destination: String

    func run() throws {
        try reportingFailures {
            guard FileManager.default.fileExists(atPath: store) else {
                throw CommandFailure.usage("no store at \(store): the directory does not exist")
            }
            // The engine is enough: the backup copies files, whatever records they hold.
            // Opened for writing when it can be, so that its lock keeps other writers out
            // while it runs; read-only beside a process that writes it (a service).
            var options = LogStoreOptions()
            options.createIfMissing = false
            let log: LogStore
            do {
                do {
                    log = try LogStore.open(at: store, options: options, logger: CLILogging.logger)
                } catch StrataError.Code.storeLocked {
                    options.readOnly = true
                    log = try LogStore.open(at: store, options: options, logger: CLILogging.logger)
                    Terminal.note("the store is open for writing in another process: backing it up read-only, as of its last committed transaction")
                } catch let error as StrataError where error.code == .io && [EROFS, EACCES, EPERM].contains(error.errno ?? 0) {
                    // A store on a read-only file system (a mounted snapshot, a read-only
                    // volume) cannot be locked for writing, and needs not be.
                    options.readOnly = true
                    log = try LogStore.open(at: store, options: options, logger: CLILogging.logger)
                    Terminal.note("the store cannot be opened for writing (\(error.message)): backing it up read-only")
                }
            } catch StrataError.Code.notFound {
                throw CommandFailure.usage("no store at \(store): the directory holds no MANIFEST")
            }
            defer { try? log.close() }
            var shown = ContinuousClock.now
            let report = try log.backup(to: destination) { progress in
                // On a terminal, a bar redrawn a tenth of a second at most; elsewhere (a
                // log, a cron job's mail), a line a second at most. Both end with a last
                // line once every file is copied.
                let now = ContinuousClock.now
                let every: Duration = Terminal.isInteractive ? .milliseconds(100) : .seconds(1)
                let done = progress.filesCopied == progress.filesTotal
                guard done || now - shown >= every else { return }
                shown = now
                let copied = "\(Terminal.bytes(progress.bytesCopied)) of \(Terminal.bytes(progress.bytesTotal))"
                if Terminal.isInteractive {
                    Terminal.progress("backup \(copied), files", done: progress.filesCopied, total: progress.filesTotal)
                } else {
                    Terminal.writeStandardError("strata: backup: \(copied), \(progress.filesCopied)/\(progress.filesTotal) files\n")
                }
            }
            print("backed up \(store) to \(destination)")
            print("sequence: \(report.sequence)")
            print("files: \(report.files) (\(report.linkedFiles) hard-linked)")
            print("bytes: \(report.bytes)")
        }
    }
}
