import Foundation
import StrataImport
import StrataTestSupport
import Testing

/// `export` streams entities without to-many lines straight from their records
/// (`JSONLineWriter`); its lines must be the bytes the general path writes — a
/// `JSONEncoder` with sorted keys — which re-encoding each line's JSON reproduces.
@Suite struct CLIExportBytesTests {
    @Test func streamedLinesAreTheEncodersBytes() throws {
        let dir = try TemporaryDirectory("cli-export-bytes")
        defer { dir.remove() }
        let model = dir.appending("Types.json")
        let types = ["bool", "int16", "int32", "int64", "float", "double", "decimal", "string", "date", "binary", "uuid", "url", "composite"]
        let properties = types.map { #"{"kind": "attribute", "name": "a_\#($0)", "type": "\#($0)", "optional": true}"# }
            + [#"{"kind": "attribute", "name": "Z_upper", "type": "string", "optional": true}"#,
               #"{"kind": "relationship", "name": "b_next", "destination": "Thing", "waivesInverse": true}"#]
        try #"{"formatVersion": 1, "version": "1", "entities": [{"name": "Thing", "properties": [\#(properties.joined(separator: ","))]}]}"#
            .write(toFile: model, atomically: true, encoding: .utf8)
        let store = dir.appending("s.strata")
        #expect(try StrataProcess.run(["create", store, "--model", model], in: dir.path).status == 0)
        let input = """
        {"@entity": "Thing", "@ref": "one", "a_bool": true, "a_int16": -32768, "a_int32": 2147483647, "a_int64": 9223372036854775807, "a_float": 1.5, "a_double": 0.1, "a_decimal": "12345678901234567890.123", "a_string": "héllo \\"there\\" \\u0001\\t/\\\\ 😀", "a_date": "2024-02-29T23:59:59.123456Z", "a_binary": {"@base64": "AP8="}, "a_uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "a_url": "https://example.com/a?b=c", "a_composite": {"z": [1, 2.5, {"b": null, "a": true}], "name": "x"}, "Z_upper": "Z"}
        {"@entity": "Thing", "a_double": "NaN", "a_decimal": 2.5, "a_date": 0, "a_float": -0.0, "b_next": {"@ref": "one"}}
        {"@entity": "Thing", "a_double": 1e300, "a_int64": -9223372036854775808, "a_float": 123456789012345680000}
        {"@entity": "Thing"}
        """
        let imported = try StrataProcess.run(["import", store], input: input, in: dir.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        let export = try StrataProcess.run(["export", store], in: dir.path)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.lines.count == 4)
        let coder = JSONLineCoder()
        for line in export.lines {
            let again = String(decoding: try coder.encode(try coder.decode(Array(line.utf8))), as: UTF8.self)
            #expect(line == again)
        }
        #expect(export.stdout.contains(#""b_next":{"@id":"strata://"#))
        #expect(export.stdout.contains(#""b_next":null"#))
    }
}
