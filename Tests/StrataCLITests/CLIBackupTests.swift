import Foundation
import StrataLog
import StrataTestSupport
import Testing

/// `strata backup STORE DEST` end to end: the copy verifies and exports the same
/// objects; an existing destination or a missing store is refused with exit 2.
@Suite struct CLIBackupTests {
    private let employees = FixturePaths.model("Employees-v1.json").path

    @Test func backupCopiesAStoreThatVerifiesAndExportsTheSame() throws {
        let dir = try TemporaryDirectory("cli-backup")
        defer { dir.remove() }
        let store = dir.appending("s.strata")
        let created = try StrataProcess.run(["create", store, "--model", employees], in: dir.path)
        #expect(created.status == 0, "\(created.stderr)")
        let input = (0..<200).map { #"{"@entity": "Department", "name": "D\#($0)"}"# }.joined(separator: "\n") + "\n"
        let imported = try StrataProcess.run(["import", store, "--batch", "50"], input: input, in: dir.path)
        #expect(imported.status == 0, "\(imported.stderr)")

        let backup = dir.appending("copy.strata")
        let run = try StrataProcess.run(["backup", store, backup], in: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("sequence: "), "\(run.stdout)")
        #expect(run.stdout.contains("files: "), "\(run.stdout)")
        #expect(run.stdout.contains("hard-linked"), "\(run.stdout)")
        #expect(run.stdout.contains("bytes: "), "\(run.stdout)")
        // Not on a terminal: progress comes as lines on stderr, the last once every file is copied.
        let progress = run.stderr.split(separator: "\n").filter { $0.hasPrefix("strata: backup: ") }
        let files = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("files: ") }?.dropFirst(7).split(separator: " ").first)
        #expect(progress.last?.hasSuffix(", \(files)/\(files) files") == true, "\(run.stderr)")

        let verify = try StrataProcess.run(["verify", backup], in: dir.path)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let original = try StrataProcess.run(["export", store], in: dir.path)
        let copied = try StrataProcess.run(["export", backup], in: dir.path)
        #expect(original.status == 0 && copied.status == 0)
        #expect(copied.lines.count == 200)
        #expect(copied.stdout == original.stdout)

        let again = try StrataProcess.run(["backup", store, backup], in: dir.path)
        #expect(again.status == 2)
        #expect(again.stderr.contains("exists"), "\(again.stderr)")
    }

    /// A store another process holds open for writing (here, this test process) is
    /// backed up read-only, as of its last committed transaction.
    @Test func aStoreOpenForWritingElsewhereIsBackedUpReadOnly() throws {
        let dir = try TemporaryDirectory("cli-backup-locked")
        defer { dir.remove() }
        let store = dir.appending("s.strata")
        #expect(try StrataProcess.run(["create", store, "--model", employees], in: dir.path).status == 0)
        let input = (0..<100).map { #"{"@entity": "Department", "name": "D\#($0)"}"# }.joined(separator: "\n") + "\n"
        #expect(try StrataProcess.run(["import", store, "--batch", "10"], input: input, in: dir.path).status == 0)
        let original = try StrataProcess.run(["export", store], in: dir.path)
        var options = LogStoreOptions()
        options.createIfMissing = false
        let writer = try LogStore.open(at: store, options: options)
        defer { try? writer.close() }

        let backup = dir.appending("copy.strata")
        let run = try StrataProcess.run(["backup", store, backup], in: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("read-only"), "\(run.stderr)")
        let verify = try StrataProcess.run(["verify", backup], in: dir.path)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let copied = try StrataProcess.run(["export", backup], in: dir.path)
        #expect(copied.lines.count == 100)
        #expect(copied.stdout == original.stdout)
    }

    @Test func aMissingStoreIsAUsageError() throws {
        let dir = try TemporaryDirectory("cli-backup-missing")
        defer { dir.remove() }
        let run = try StrataProcess.run(["backup", dir.appending("nowhere.strata"), dir.appending("copy")], in: dir.path)
        #expect(run.status == 2)
        #expect(run.stderr.contains("no store at"))
        #expect(!FileManager.default.fileExists(atPath: dir.appending("copy")))
    }
}
