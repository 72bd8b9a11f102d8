import Foundation
import StrataTestSupport
import Testing

/// `strata create` on a store that already exists, written with version 1 of the
/// model hash: its own model is recognised, another is refused.
@Suite struct CLICreateExistingTests {
    @Test func aCommittedFormatOneStoreIsRecognisedWithItsModel() throws {
        let dir = try TemporaryDirectory("cli-create-existing")
        defer { dir.remove() }
        let store = dir.appending("employees-v1.strata")
        try FileManager.default.copyItem(atPath: FixturePaths.store("format-1/employees-v1.strata"), toPath: store)
        let before = try DirectorySnapshot(store)

        let same = try StrataProcess.run(["create", store, "--model", FixturePaths.model("Employees-v1.json").path], in: dir.path)
        #expect(same.status == 0, "\(same.stderr)")
        #expect(same.stdout.contains("already exists with this model"), "\(same.stdout)")
        #expect(try DirectorySnapshot(store) == before)

        let other = try StrataProcess.run(["create", store, "--model", FixturePaths.model("Employees-v2.json").path], in: dir.path)
        #expect(other.status != 0)
        #expect(other.stderr.contains("another model"), "\(other.stderr)")
        #expect(try DirectorySnapshot(store) == before)
    }
}
