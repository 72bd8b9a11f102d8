import Foundation
import Testing
import StrataTestSupport

/// `strata migrate STORE --to MODEL.json`: an inferred migration with a new hash in
/// `stats`, and a refusal that changes nothing.
@Suite struct CLIMigrateTests {
    @Test func migrateRunsAnInferredMigrationAndStatsShowsTheNewHash() throws {
        let dir = try TemporaryDirectory("cli-migrate")
        defer { dir.remove() }
        let store = dir.appending("tasks.strata")
        let v1 = FixturePaths.model("Tasks-v1.json").path
        let v2 = FixturePaths.model("Tasks-v2-latitude.json").path
        #expect(try StrataProcess.run(["create", store, "--model", v1], in: dir.path).status == 0)
        let lines = (0..<30).map { #"{"@entity":"Task","title":"task \#($0)"}"# }.joined(separator: "\n")
        #expect(try StrataProcess.run(["import", store], input: lines, in: dir.path).status == 0)

        let migrate = try StrataProcess.run(["migrate", store, "--to", v2, "--memory-budget", "1MiB"], in: dir.path)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let stats = try StrataProcess.run(["stats", store, "--json"], in: dir.path)
        // The hash a store created directly at v2 records.
        let fresh = dir.appending("fresh.strata")
        #expect(try StrataProcess.run(["create", fresh, "--model", v2], in: dir.path).status == 0)
        let freshStats = try StrataProcess.run(["stats", fresh, "--json"], in: dir.path)
        let hashLine = freshStats.lines.first { $0.contains("modelHash") } ?? "none"
        #expect(hashLine != "none")
        #expect(stats.stdout.contains(hashLine.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: ","))))
        let export = try StrataProcess.run(["export", store], in: dir.path)
        #expect(export.lines.count == 30)
        #expect(export.lines.allSatisfy { $0.contains(#""latitude":0"#) })
    }

    @Test func aMigrationThatCannotBeInferredExitsNonZeroAndChangesNothing() throws {
        let dir = try TemporaryDirectory("cli-migrate-refused")
        defer { dir.remove() }
        let store = dir.appending("tasks.strata")
        #expect(try StrataProcess.run(["create", store, "--model", FixturePaths.model("Tasks-v1.json").path], in: dir.path).status == 0)
        let before = try DirectorySnapshot(store)
        let refused = try StrataProcess.run(["migrate", store, "--to", FixturePaths.model("Tasks-v2-latitude-required-no-default.json").path], in: dir.path)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("Task.latitude"))
        #expect(try DirectorySnapshot(store) == before)
        let badBudget = try StrataProcess.run(["migrate", store, "--to", FixturePaths.model("Tasks-v2-latitude.json").path, "--memory-budget", "lots"], in: dir.path)
        #expect(badBudget.status == 2)
    }
    /// A damaged store is not migrated: the refusal names the damage, and the store is
    /// left byte for byte as it was; a dry run says a migration would be refused.
    @Test func aDamagedStoreIsNotMigrated() throws {
        let dir = try TemporaryDirectory("cli-migrate-damaged")
        defer { dir.remove() }
        let store = dir.appending("tasks.strata")
        #expect(try StrataProcess.run(["create", store, "--model", FixturePaths.model("Tasks-v1.json").path], in: dir.path).status == 0)
        let lines = (0..<30).map { #"{"@entity":"Task","title":"task \#($0)"}"# }.joined(separator: "\n")
        #expect(try StrataProcess.run(["import", store], input: lines, in: dir.path).status == 0)
        let segments = try FileManager.default.contentsOfDirectory(atPath: store + "/segments").filter { $0.hasSuffix(".seg") }.sorted()
        let sealed = store + "/segments/" + (try #require(segments.first))
        var bytes = try FileBytes.read(sealed)
        bytes[bytes.count / 2] ^= 0xFF
        try FileBytes.write(bytes, to: sealed)
        let before = try DirectorySnapshot(store)
        let v2 = FixturePaths.model("Tasks-v2-latitude.json").path
        let refused = try StrataProcess.run(["migrate", store, "--to", v2], in: dir.path)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("does not verify"), "\(refused.stderr)")
        #expect(try DirectorySnapshot(store) == before)
        let dry = try StrataProcess.run(["migrate", store, "--to", v2, "--dry-run"], in: dir.path)
        #expect(dry.status == 1)
        #expect(dry.stdout.contains("would be refused"))
    }
}
