import Foundation
import StrataTestSupport
import Testing

/// Every bad input gets a message on stderr and a non-zero exit: 2 when the command
/// cannot run, 1 when the data is wanting.
@Suite struct CLIErrorTests {
    private let employees = FixturePaths.model("Employees-v1.json").path

    private func newStore(_ dir: TemporaryDirectory) throws -> String {
        let store = dir.appending("s.strata")
        let created = try StrataProcess.run(["create", store, "--model", employees], in: dir.path)
        #expect(created.status == 0, "\(created.stderr)")
        return store
    }

    private func exportLines(_ store: String, _ dir: TemporaryDirectory) throws -> [String] {
        let export = try StrataProcess.run(["export", store], in: dir.path)
        #expect(export.status == 0, "\(export.stderr)")
        return export.lines
    }

    @Test(arguments: [["import"], ["export"], ["verify"], ["stats"], ["stats", "--json"]])
    func missingStore(_ command: [String]) throws {
        let dir = try TemporaryDirectory("cli-missing")
        defer { dir.remove() }
        let run = try StrataProcess.run([command[0], dir.appending("nowhere.strata")] + command.dropFirst(), input: "", in: dir.path)
        #expect(run.status == 2)
        #expect(run.stderr.contains("no store at"))
        #expect(run.stdout.isEmpty)
    }

    /// With stderr on a full disk (or closed, as a daemon runs it), a command still
    /// ends with its own exit code; with stdout on a full disk, a command whose output
    /// was lost does not report success.
    @Test func outputThatCannotBeWritten() throws {
        let dir = try TemporaryDirectory("cli-full")
        defer { dir.remove() }
        let missing = try StrataProcess.run(["verify", dir.appending("nowhere.strata")], in: dir.path, standardError: "/dev/full")
        #expect(missing.status == 2)
        let store = try newStore(dir)
        let exported = try StrataProcess.run(["export", store], in: dir.path, standardError: "/dev/full")
        #expect(exported.status == 0)
        for command in [["stats", store, "--json"], ["stats", store], ["verify", store]] {
            let run = try StrataProcess.run(command, in: dir.path, standardOutput: "/dev/full")
            #expect(run.status == 1, "\(command)")
            #expect(run.stderr.contains("cannot write standard output"), "\(command)")
        }
    }

    /// A backup or copy into the store it copies, however the path is spelled, is
    /// refused before anything is written.
    @Test func aDestinationInsideTheStore() throws {
        let dir = try TemporaryDirectory("cli-inside")
        defer { dir.remove() }
        let store = try newStore(dir)
        try FileManager.default.createDirectory(atPath: dir.appending("other"), withIntermediateDirectories: false)
        for command in ["backup", "copy"] {
            for destination in [dir.appending("other/../s.strata/segments/000099.seg"), store + "/./blobs/x"] {
                let run = try StrataProcess.run([command, store, destination], in: dir.path)
                #expect(run.status == 2, "\(command) \(destination): \(run.stderr)")
                #expect(run.stderr.contains("inside"), "\(command) \(destination)")
                #expect(!FileManager.default.fileExists(atPath: destination))
            }
        }
    }

    /// A store that lost its MANIFEST is damaged, not absent: verify says so with exit
    /// 1. A file given for a store is named as a file.
    @Test func aStoreWithoutItsManifestIsCorrupt() throws {
        let dir = try TemporaryDirectory("cli-nomanifest")
        defer { dir.remove() }
        let store = try newStore(dir)
        let imported = try StrataProcess.run(["import", store], input: "{\"@entity\":\"Department\",\"name\":\"Sales\"}\n", in: dir.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        try FileManager.default.removeItem(atPath: store + "/MANIFEST")
        let verify = try StrataProcess.run(["verify", store], in: dir.path)
        #expect(verify.status == 1, "\(verify.stderr)")
        #expect(verify.stderr.contains("lost its manifest"))
        let file = dir.appending("plain.txt")
        try "not a store".write(toFile: file, atomically: true, encoding: .utf8)
        let onFile = try StrataProcess.run(["verify", file], in: dir.path)
        #expect(onFile.status == 2)
        #expect(onFile.stderr.contains("is a file"))
    }

    /// With the store's directory immutable (as a read-only file system makes it): a
    /// backup still runs, read-only; an import whose batches all committed but whose
    /// closing seal could not write says the objects are committed. Skipped where
    /// `chattr` cannot set the flag (not root, another file system).
    @Test func aStoreThatCannotBeWritten() throws {
        let dir = try TemporaryDirectory("cli-immutable")
        defer {
            _ = try? Self.chattr("-i", dir.appending("s.strata"))
            dir.remove()
        }
        let store = try newStore(dir)
        try FileManager.default.removeItem(atPath: store + "/LOCK")
        guard try Self.chattr("+i", store) else { return }
        let backup = try StrataProcess.run(["backup", store, dir.appending("copy.strata")], in: dir.path)
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(try StrataProcess.run(["verify", dir.appending("copy.strata")], in: dir.path).status == 0)
        // The LOCK file exists again for the import, which may open the store for writing.
        _ = try Self.chattr("-i", store)
        FileManager.default.createFile(atPath: store + "/LOCK", contents: nil)
        _ = try Self.chattr("+i", store)
        let lines = (1...3).map { "{\"@entity\":\"Department\",\"name\":\"D\($0)\"}" }.joined(separator: "\n") + "\n"
        let imported = try StrataProcess.run(["import", store], input: lines, in: dir.path)
        _ = try Self.chattr("-i", store)
        #expect(imported.status == 1)
        #expect(imported.stderr.contains("imported 3 objects") && imported.stderr.contains("all committed"), "\(imported.stderr)")
        let stats = try StrataProcess.run(["export", store], in: dir.path)
        #expect(stats.lines.count == 3)
    }

    /// Runs `chattr FLAG PATH`; false when it could not.
    static func chattr(_ flag: String, _ path: String) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, path]
        process.standardError = FileHandle.nullDevice
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr") else { return false }
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Arguments the parser refuses exit with 2, as every other bad argument does,
    /// with the usage; asking for help is not a failure.
    @Test(arguments: [["verify"], ["import", "s.strata", "--batch", "0"], ["bogus"], ["stats", "a", "b"]])
    func argumentsTheParserRefuses(_ arguments: [String]) throws {
        let dir = try TemporaryDirectory("cli-parse")
        defer { dir.remove() }
        let run = try StrataProcess.run(arguments, in: dir.path)
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains("Usage:"))
        #expect(try StrataProcess.run([arguments[0], "--help"].filter { $0 != "bogus" }, in: dir.path).status == 0)
    }

    @Test func modelFileThatIsNotJSON() throws {
        let dir = try TemporaryDirectory("cli-badmodel")
        defer { dir.remove() }
        let model = dir.appending("bad.json")
        try "{\"entities\": [".write(toFile: model, atomically: true, encoding: .utf8)
        let run = try StrataProcess.run(["create", dir.appending("s.strata"), "--model", model], in: dir.path)
        #expect(run.status == 2)
        #expect(run.stderr.contains("bad.json"))
        #expect(run.stderr.contains("not valid"))
        #expect(!FileManager.default.fileExists(atPath: dir.appending("s.strata")))
    }

    @Test func invalidModelGetsTheLibrarysMessage() throws {
        let dir = try TemporaryDirectory("cli-invalidmodel")
        defer { dir.remove() }
        let model = dir.appending("invalid.json")
        try #"{"formatVersion": 1, "version": "1", "entities": [{"name": "A", "properties": [{"kind": "relationship", "name": "b", "destination": "Nowhere"}]}]}"#
            .write(toFile: model, atomically: true, encoding: .utf8)
        let run = try StrataProcess.run(["create", dir.appending("s.strata"), "--model", model], in: dir.path)
        #expect(run.status == 2)
        #expect(run.stderr.contains("Nowhere"))
        let missing = try StrataProcess.run(["create", dir.appending("s.strata"), "--model", dir.appending("none.json")], in: dir.path)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("none.json"))
    }

    @Test func malformedLineThreeIsNamedAndNothingIsImported() throws {
        let dir = try TemporaryDirectory("cli-malformed")
        defer { dir.remove() }
        let store = try newStore(dir)
        let input = """
        {"@entity": "Department", "name": "A"}
        {"@entity": "Department", "name": "B"}
        {"@entity": "Department", "name": }
        {"@entity": "Department", "name": "D"}
        """
        let run = try StrataProcess.run(["import", store, "--batch", "1"], input: input, in: dir.path)
        #expect(run.status == 1)
        #expect(run.stderr.contains("line 3"))
        #expect(run.stderr.contains("not valid JSON"))
        #expect(try exportLines(store, dir).isEmpty, "every line is checked before the first batch")
    }

    /// Values JSON's grammar allows but the reader cannot hold are named with their place.
    @Test(arguments: [(#"{"@entity": "Department", "name": "\ud800"}"#, "\"name\""), (#"{"@entity": "Employee", "salary": 1e400}"#, "\"salary\"")])
    func aValueTheReaderCannotHold(_ line: String, _ place: String) throws {
        let dir = try TemporaryDirectory("cli-unholdable")
        defer { dir.remove() }
        let store = try newStore(dir)
        let run = try StrataProcess.run(["import", store], input: line + "\n", in: dir.path)
        #expect(run.status == 1)
        #expect(run.stderr.contains("line 1: not valid JSON at \(place)"), "\(run.stderr)")
        #expect(!run.stderr.contains("DecodingError"))
    }

    @Test(arguments: [
        (#"{"@entity": "Dept", "name": "x"}"#, "unknown entity 'Dept'"),
        (#"{"@entity": "Department", "nmae": "x"}"#, "Department has no attribute or relationship 'nmae'"),
        (#"{"@entity": "Employee", "name": "x", "salary": "high"}"#, "Employee.salary is double, got a string"),
        (#"{"@entity": "Employee", "name": 7}"#, "Employee.name is string, got an integer"),
        (#"{"name": "x"}"#, "no \"@entity\""),
        (#"["not", "an", "object"]"#, "expected a JSON object"),
        (#"{"@entity": "Employee", "name": "x", "department": "Sales"}"#, "Employee.department expects"),
        (#"{"@entity": "Employee", "name": "x", "photo": "AAEC"}"#, "@base64"),
    ])
    func badLinesNameLineAndProblem(line: String, message: String) throws {
        let dir = try TemporaryDirectory("cli-badline")
        defer { dir.remove() }
        let store = try newStore(dir)
        let input = #"{"@entity": "Department", "name": "ok"}"# + "\n" + line + "\n"
        let run = try StrataProcess.run(["import", store], input: input, in: dir.path)
        #expect(run.status == 1)
        #expect(run.stderr.contains("line 2"), "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test func unresolvedReference() throws {
        let dir = try TemporaryDirectory("cli-unresolved")
        defer { dir.remove() }
        let store = try newStore(dir)
        let input = #"{"@entity": "Employee", "name": "Ada", "department": {"@ref": "nowhere"}}"#
        let run = try StrataProcess.run(["import", store], input: input, in: dir.path)
        #expect(run.status == 1)
        #expect(run.stderr.contains("line 1"))
        #expect(run.stderr.contains("nowhere"))
        #expect(try exportLines(store, dir).isEmpty)
    }

    @Test func failedBatchLeavesNothingOfItselfCommitted() throws {
        let dir = try TemporaryDirectory("cli-batch")
        defer { dir.remove() }
        let store = try newStore(dir)
        // Batches of two lines: lines 1–2 commit; line 4 lacks the required name, so
        // the batch of lines 3–4 fails at save and line 3 must not appear.
        let input = """
        {"@entity": "Department", "name": "One"}
        {"@entity": "Department", "name": "Two"}
        {"@entity": "Department", "name": "Three"}
        {"@entity": "Employee", "salary": 5}
        {"@entity": "Department", "name": "Five"}
        """
        let run = try StrataProcess.run(["import", store, "--batch", "2"], input: input, in: dir.path)
        #expect(run.status == 1)
        #expect(run.stderr.contains("line 4"), "\(run.stderr)")
        #expect(run.stderr.contains("name"))
        #expect(run.stderr.contains("lines 1–2 (2 objects) were committed"), "\(run.stderr)")
        #expect(run.stderr.contains("nothing of lines 3–4 was committed"), "\(run.stderr)")
        let lines = try exportLines(store, dir)
        #expect(lines.count == 2)
        #expect(lines.contains { $0.contains("One") } && lines.contains { $0.contains("Two") })
        #expect(!lines.contains { $0.contains("Three") || $0.contains("Five") })
    }

    @Test func importIntoAStoreWithoutAModel() throws {
        let dir = try TemporaryDirectory("cli-nomodel")
        defer { dir.remove() }
        // A directory that is not a store at all.
        let plain = dir.appending("plain")
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        let run = try StrataProcess.run(["import", plain], input: "", in: dir.path)
        #expect(run.status == 2)
        #expect(run.stderr.contains("no store at"))
    }

    @Test func exportOfAnUnknownEntity() throws {
        let dir = try TemporaryDirectory("cli-entity")
        defer { dir.remove() }
        let store = try newStore(dir)
        let run = try StrataProcess.run(["export", store, "--entity", "Nope"], in: dir.path)
        #expect(run.status == 2)
        #expect(run.stderr.contains("unknown entity 'Nope'"))
    }

    @Test func verifyReportsADamagedBlobWithFileAndOffset() throws {
        let dir = try TemporaryDirectory("cli-corrupt")
        defer { dir.remove() }
        let store = try newStore(dir)
        // A photo above the external-storage threshold lands in the blob area. (A bad
        // frame in the active segment is by design a torn tail, not damage.)
        var generator = SystemRandomNumberGenerator()
        let photo = Data((0..<40_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let input = #"{"@entity": "Employee", "name": "Ada", "photo": {"@base64": "\#(photo.base64EncodedString())"}}"#
        #expect(try StrataProcess.run(["import", store], input: input, in: dir.path).status == 0)
        #expect(try StrataProcess.run(["verify", store], in: dir.path).status == 0)
        let blobs = try FileManager.default.contentsOfDirectory(atPath: store + "/blobs").sorted()
        guard let blob = blobs.first.map({ store + "/blobs/" + $0 }), var bytes = FileManager.default.contents(atPath: blob),
              bytes.count > 20_000 else {
            Issue.record("no blob written in \(store)")
            return
        }
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: blob))
        let run = try StrataProcess.run(["verify", store], in: dir.path)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("blobs/"), "\(run.stdout)")
        #expect(run.stdout.contains("offset"), "\(run.stdout)")
    }
}

/// Arguments past what a command can take are usage errors (exit 2) that change
/// nothing, never a trap.
@Suite struct CLIArgumentBoundsTests {
    @Test func aDemoDirectoryThatIsNotAStoreIsLeftAlone() throws {
        let dir = try TemporaryDirectory("cli-demo-dir")
        defer { dir.remove() }
        let keep = dir.appending("keep.txt")
        _ = FileManager.default.createFile(atPath: keep, contents: Data([1]))
        let run = try StrataProcess.run(["demo", "--dir", dir.path, "--employees", "10"], in: dir.path)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("not a Strata store"), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: keep))
    }

    @Test(arguments: [["--photo-kib", "99999999999999999"], ["--memory-budget", "99999999999999999"], ["--employees", "9999999999999"]])
    func demoSizesPastTheirBoundsAreUsageErrors(arguments: [String]) throws {
        let dir = try TemporaryDirectory("cli-demo-bounds")
        defer { dir.remove() }
        let run = try StrataProcess.run(["demo", "--dir", dir.appending("s.strata")] + arguments, in: dir.path)
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
    }

    @Test func aMigrationBudgetPastIntsRangeIsAUsageError() throws {
        let dir = try TemporaryDirectory("cli-migrate-budget")
        defer { dir.remove() }
        let employees = FixturePaths.model("Employees-v1.json").path
        let store = dir.appending("s.strata")
        #expect(try StrataProcess.run(["create", store, "--model", employees], in: dir.path).status == 0)
        let run = try StrataProcess.run(["migrate", store, "--to", employees, "--memory-budget", "99999999999GiB"], in: dir.path)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("--memory-budget"), "\(run.stderr)")
    }
}
