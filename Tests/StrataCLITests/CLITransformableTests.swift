import Foundation
import Testing
import StrataTestSupport

/// Transformable attributes on the command line: the tool knows no application
/// transformer, so it moves the stored bytes as they are — base64 for a custom
/// transformer, the JSON itself for the built-in JSON one — through import, export
/// and migration.
@Suite struct CLITransformableTests {
    private func modelFile(_ dir: TemporaryDirectory, version: String, extra: Bool) throws -> String {
        let loyalty = extra ? #", {"kind": "attribute", "name": "loyalty", "type": "int64", "default": 0}"# : ""
        let json = """
            {"formatVersion": 1, "version": "\(version)", "entities": [{"name": "Customer", "properties": [
              {"kind": "attribute", "name": "name", "type": "string"},
              {"kind": "attribute", "name": "avatar", "type": "transformable", "optional": true,
               "externalStorage": true, "valueTransformerName": "AppOnlyImage"},
              {"kind": "attribute", "name": "preferences", "type": "transformable", "optional": true}\(loyalty)]}]}
            """
        let path = dir.appending("Customers-v\(version).json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func importExportAndMigrateKeepTheTransformersBytes() throws {
        let dir = try TemporaryDirectory("cli-transformable")
        defer { dir.remove() }
        let store = dir.appending("customers.strata")
        let v1 = try modelFile(dir, version: "1", extra: false)
        let v2 = try modelFile(dir, version: "2", extra: true)
        let created = try StrataProcess.run(["create", store, "--model", v1], in: dir.path)
        #expect(created.status == 0, "\(created.stderr)")
        let big = Data((0..<30_000).map { UInt8($0 % 253) }).base64EncodedString()
        let input = [
            #"{"@entity":"Customer","name":"a","avatar":{"@base64":"iVQCAQoU"},"preferences":{"theme":"dark","fontSize":12}}"#,
            #"{"@entity":"Customer","name":"b","avatar":{"@base64":"\#(big)"}}"#,
        ].joined(separator: "\n")
        let imported = try StrataProcess.run(["import", store], input: input, in: dir.path)
        #expect(imported.status == 0, "\(imported.stderr)")

        let export = try StrataProcess.run(["export", store, "--blobs"], in: dir.path)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains(#""avatar":{"@base64":"iVQCAQoU"}"#), "\(export.stdout)")
        #expect(export.stdout.contains(#""avatar":{"@base64":"\#(big)"}"#))
        #expect(export.stdout.contains(#""preferences":{"fontSize":12,"theme":"dark"}"#), "\(export.stdout)")

        let migrated = try StrataProcess.run(["migrate", store, "--to", v2], in: dir.path)
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let after = try StrataProcess.run(["export", store, "--blobs"], in: dir.path)
        #expect(after.stdout.contains(#""avatar":{"@base64":"iVQCAQoU"}"#))
        #expect(after.stdout.contains(#""avatar":{"@base64":"\#(big)"}"#))
        #expect(after.stdout.contains(#""preferences":{"fontSize":12,"theme":"dark"}"#))
        #expect(after.stdout.contains(#""loyalty":0"#))
        #expect(try StrataProcess.run(["verify", store], in: dir.path).status == 0)
    }
}
