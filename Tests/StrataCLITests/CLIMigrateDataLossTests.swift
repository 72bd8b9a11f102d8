import Foundation
import Testing
import StrataTestSupport

/// `strata migrate` never discards stored values quietly: `--dry-run` prints the plan
/// with what each removal discards, and a migration that discards values needs
/// `--allow-data-loss`; without it the store is left byte for byte as it was.
@Suite struct CLIMigrateDataLossTests {
    /// Employees at v1: three with a photo (one above the external-storage threshold,
    /// so in the blob area), one without.
    private func employeesStore(in dir: TemporaryDirectory) throws -> (store: String, photoBytes: Int) {
        let store = dir.appending("employees.strata")
        #expect(try StrataProcess.run(["create", store, "--model", FixturePaths.model("Employees-v1.json").path], in: dir.path).status == 0)
        let photos = [Data(repeating: 7, count: 10), Data(repeating: 1, count: 20_000), Data([1, 2, 3])]
        var lines = photos.enumerated().map { index, photo in
            #"{"@entity":"Employee","name":"e\#(index)","photo":{"@base64":"\#(photo.base64EncodedString())"}}"#
        }
        lines.append(#"{"@entity":"Employee","name":"no photo"}"#)
        let imported = try StrataProcess.run(["import", store], input: lines.joined(separator: "\n"), in: dir.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        return (store, photos.map(\.count).reduce(0, +))
    }

    @Test func theEmployeesPhotoSplitIsRefusedNamingThePhotosAndLeavesTheStoreUnchanged() throws {
        let dir = try TemporaryDirectory("cli-migrate-loss")
        defer { dir.remove() }
        let (store, bytes) = try employeesStore(in: dir)
        let before = try DirectorySnapshot(store)

        let refused = try StrataProcess.run(["migrate", store, "--to", FixturePaths.model("Employees-v2.json").path], in: dir.path)
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("Employee.photo: attribute removed, discards 3 values (\(bytes) bytes)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--allow-data-loss"))
        #expect(try DirectorySnapshot(store) == before, "a refused migration leaves every byte")

        let export = try StrataProcess.run(["export", store, "--blobs"], in: dir.path)
        #expect(export.lines.filter { $0.contains(#""photo":{"@base64""#) }.count == 3, "the photos are still there")
    }

    @Test func dryRunPrintsThePlanWithCountsAndWritesNothing() throws {
        let dir = try TemporaryDirectory("cli-migrate-dry-run")
        defer { dir.remove() }
        let (store, bytes) = try employeesStore(in: dir)
        let before = try DirectorySnapshot(store)

        let plan = try StrataProcess.run(["migrate", store, "--to", FixturePaths.model("Employees-v2.json").path, "--dry-run"], in: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("model '1' ("))
        #expect(plan.stdout.contains("→ model '2' ("))
        #expect(plan.stdout.contains("Employee.photo: attribute removed, discards 3 values (\(bytes) bytes)"), "\(plan.stdout)")
        #expect(plan.stdout.contains("Employee.profile: relationship added"))
        #expect(plan.stdout.contains("Photo: entity added"))
        #expect(plan.stdout.contains("needs --allow-data-loss"))
        #expect(try DirectorySnapshot(store) == before)
    }

    @Test func allowDataLossMigratesAndThePhotosAreGoneAsThePlanSaid() throws {
        let dir = try TemporaryDirectory("cli-migrate-allow-loss")
        defer { dir.remove() }
        let (store, _) = try employeesStore(in: dir)
        let migrated = try StrataProcess.run(
            ["migrate", store, "--to", FixturePaths.model("Employees-v2.json").path, "--allow-data-loss"], in: dir.path)
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(migrated.stderr.contains("Employee.photo"))
        let export = try StrataProcess.run(["export", store, "--blobs"], in: dir.path)
        let employees = export.lines.filter { $0.contains(#""@entity":"Employee""#) }
        #expect(employees.count == 4)
        #expect(!export.stdout.contains("@base64"))
    }

    @Test func removingAnAttributeThatHoldsNoValueNeedsNoFlag() throws {
        let dir = try TemporaryDirectory("cli-migrate-empty-drop")
        defer { dir.remove() }
        let store = dir.appending("tasks.strata")
        #expect(try StrataProcess.run(["create", store, "--model", FixturePaths.model("Tasks-v1.json").path], in: dir.path).status == 0)
        let lines = (0..<5).map { #"{"@entity":"Task","title":"t\#($0)"}"# }.joined(separator: "\n")
        #expect(try StrataProcess.run(["import", store], input: lines, in: dir.path).status == 0)
        let target = FixturePaths.model("Tasks-v2-remove-attribute.json").path

        let plan = try StrataProcess.run(["migrate", store, "--to", target, "--dry-run"], in: dir.path)
        #expect(plan.stdout.contains("Task.notes: attribute removed"), "\(plan.stdout)")
        #expect(!plan.stdout.contains("discards 0"))
        #expect(plan.stdout.contains("discards no stored value"))
        let migrated = try StrataProcess.run(["migrate", store, "--to", target], in: dir.path)
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(try StrataProcess.run(["export", store], in: dir.path).lines.count == 5)
    }

    @Test func oneNoteIsEnoughToRefuse() throws {
        let dir = try TemporaryDirectory("cli-migrate-one-note")
        defer { dir.remove() }
        let store = dir.appending("tasks.strata")
        #expect(try StrataProcess.run(["create", store, "--model", FixturePaths.model("Tasks-v1.json").path], in: dir.path).status == 0)
        let lines = [#"{"@entity":"Task","title":"a"}"#, #"{"@entity":"Task","title":"b","notes":"héllo"}"#].joined(separator: "\n")
        #expect(try StrataProcess.run(["import", store], input: lines, in: dir.path).status == 0)
        let before = try DirectorySnapshot(store)
        let refused = try StrataProcess.run(["migrate", store, "--to", FixturePaths.model("Tasks-v2-remove-attribute.json").path], in: dir.path)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("Task.notes: attribute removed, discards 1 value (6 bytes)"), "\(refused.stderr)")
        #expect(try DirectorySnapshot(store) == before)
    }
}
