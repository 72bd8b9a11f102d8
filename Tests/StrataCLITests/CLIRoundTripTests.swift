import Foundation
import Strata
import StrataTestSupport
import Testing

/// create → import → export → import into a second store → export: the same objects,
/// values and relationships, with only the store identifiers in the URIs differing.
@Suite struct CLIRoundTripTests {
    /// Runs the round trip for `model` and `input`, returning both exports.
    private func roundTrip(model: String, input: String, batch: Int = 1_000, in dir: TemporaryDirectory) throws -> (first: String, second: String) {
        let first = dir.appending("first.strata"), second = dir.appending("second.strata")
        for store in [first, second] {
            let created = try StrataProcess.run(["create", store, "--model", model], in: dir.path)
            #expect(created.status == 0, "\(created.stderr)")
        }
        let imported = try StrataProcess.run(["import", first, "--batch", "\(batch)"], input: input, in: dir.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        // The import ends with its last segment sealed: the newest segment holds no
        // record (it is the size of a new store's empty one), so the next open replays
        // nothing.
        let files = FileManager.default
        let segments = try files.contentsOfDirectory(atPath: first + "/segments").sorted()
        let newest = try #require(segments.last)
        let size = try files.attributesOfItem(atPath: first + "/segments/" + newest)[.size] as? Int
        let emptySize = try files.attributesOfItem(atPath: second + "/segments/" + "000001.seg")[.size] as? Int
        #expect(segments.count >= 2 && size == emptySize, "\(segments), newest \(size ?? -1) bytes, empty \(emptySize ?? -1)")
        let export1 = try StrataProcess.run(["export", first, "--blobs"], in: dir.path)
        #expect(export1.status == 0, "\(export1.stderr)")
        let file = dir.appending("export.jsonl")
        try export1.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let reimported = try StrataProcess.run(["import", second, "--file", file], in: dir.path)
        #expect(reimported.status == 0, "\(reimported.stderr)")
        let export2 = try StrataProcess.run(["export", second, "--blobs"], in: dir.path)
        #expect(export2.status == 0, "\(export2.stderr)")
        return (export1.stdout, export2.stdout)
    }

    @Test func employeesWithForwardReferencesAndBlobs() throws {
        let dir = try TemporaryDirectory("cli-employees")
        defer { dir.remove() }
        // Ada names her department before its line: a forward reference across batches.
        let input = """
        {"@entity": "Employee", "@ref": "ada", "name": "Ada", "salary": 120000.5, "department": {"@ref": "eng"}, "photo": {"@base64": "iVBORw0KGgo="}}
        {"@entity": "Employee", "name": "Grace", "department": {"@ref": "eng"}}

        {"@entity": "Department", "@ref": "eng", "name": "Engineering"}
        {"@entity": "Department", "name": "Empty"}
        {"@entity": "Employee", "name": "Linus", "salary": 1}
        """
        let (first, second) = try roundTrip(model: FixturePaths.model("Employees-v1.json").path, input: input, batch: 1, in: dir)
        #expect(first.split(separator: "\n").count == 5)
        #expect(withoutStoreIdentifiers(first) == withoutStoreIdentifiers(second))
        #expect(first.contains(#""photo":{"@base64":"iVBORw0KGgo="}"#))
        #expect(first.contains(#""name":"Grace","photo":null,"salary":0"#))
        // Both employees of Engineering point at the same department.
        let lines = first.split(separator: "\n")
        guard let engineering = lines.first(where: { $0.contains("Engineering") }),
              let uri = engineering.firstMatch(of: /"@id":"([^"]+)"/)?.1 else {
            Issue.record("no Engineering line in \(first)")
            return
        }
        #expect(lines.filter { $0.contains(#""department":{"@id":"\#(uri)"}"#) }.count == 2)
    }

    @Test func exportWithoutBlobsReadsNoBlobAndSaysSo() throws {
        let dir = try TemporaryDirectory("cli-blobs")
        defer { dir.remove() }
        let store = dir.appending("s.strata")
        _ = try StrataProcess.run(["create", store, "--model", FixturePaths.model("Employees-v1.json").path], in: dir.path)
        let input = #"{"@entity": "Employee", "name": "Ada", "photo": {"@base64": "AAEC"}}"#
        #expect(try StrataProcess.run(["import", store], input: input, in: dir.path).status == 0)
        let export = try StrataProcess.run(["export", store], in: dir.path)
        #expect(export.status == 0)
        #expect(!export.stdout.contains("photo"))
        #expect(export.stderr.contains("Employee.photo"))
    }

    @Test func interviewsInheritanceManyToManyOneToOneAndCarriedBatches() throws {
        let dir = try TemporaryDirectory("cli-interviews")
        defer { dir.remove() }
        // The question comes first and needs its subject, which needs it back (minimum
        // count 1): with --batch 1 the import carries the batch on until both exist.
        let input = """
        {"@entity": "Question", "@ref": "q1", "text": "Why?", "position": 1, "subject": {"@ref": "s1"}, "tags": [{"@ref": "t1"}, {"@ref": "t2"}]}
        {"@entity": "Subject", "@ref": "s1", "name": "Sam", "age": 30, "interviewer": {"@ref": "iv"}}
        {"@entity": "Interviewer", "@ref": "iv", "name": "Ivy", "age": 41, "email": "ivy@example.com"}
        {"@entity": "Record", "answer": "Because.", "recordedAt": "2024-05-01T12:00:00.25Z", "audio": {"@base64": "UklGRg=="}, "question": {"@ref": "q1"}}
        {"@entity": "Tag", "@ref": "t1", "label": "warm-up"}
        {"@entity": "Tag", "@ref": "t2", "label": "core"}
        {"@entity": "Question", "text": "How?", "subject": {"@ref": "s1"}, "tags": [{"@ref": "t2"}]}
        """
        let (first, second) = try roundTrip(model: FixturePaths.model("Interviews.json").path, input: input, batch: 1, in: dir)
        #expect(first.split(separator: "\n").count == 7)
        #expect(withoutStoreIdentifiers(first) == withoutStoreIdentifiers(second))
        #expect(first.contains(#""recordedAt":"2024-05-01T12:00:00.25Z""#))
        #expect(!first.contains("displayName"), "transient attributes are not exported")
    }

    @Test func everyAttributeTypeSurvives() throws {
        let dir = try TemporaryDirectory("cli-types")
        defer { dir.remove() }
        let model = dir.appending("Types.json")
        let types = ["bool", "int16", "int32", "int64", "float", "double", "decimal", "string", "date", "binary", "uuid", "url", "composite"]
        let properties = types.map { #"{"kind": "attribute", "name": "a_\#($0)", "type": "\#($0)", "optional": true}"# }
        try #"{"formatVersion": 1, "version": "1", "entities": [{"name": "Thing", "properties": [\#(properties.joined(separator: ","))]}]}"#
            .write(toFile: model, atomically: true, encoding: .utf8)
        let input = """
        {"@entity": "Thing", "a_bool": true, "a_int16": -32768, "a_int32": 2147483647, "a_int64": 9223372036854775807, "a_float": 1.5, "a_double": 0.1, "a_decimal": "12345678901234567890.123", "a_string": "héllo \\"there\\"", "a_date": "2024-02-29T23:59:59.123456Z", "a_binary": {"@base64": "AP8="}, "a_uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "a_url": "https://example.com/a?b=c", "a_composite": {"items": [1, 2], "name": "x"}}
        {"@entity": "Thing", "a_double": "NaN", "a_decimal": 2.5, "a_date": 0}
        """
        let (first, second) = try roundTrip(model: model, input: input, in: dir)
        #expect(withoutStoreIdentifiers(first) == withoutStoreIdentifiers(second))
        for fragment in [#""a_int64":9223372036854775807"#, #""a_decimal":"12345678901234567890.123""#, #""a_date":"2024-02-29T23:59:59.123456Z""#,
                         #""a_composite":{"items":[1,2],"name":"x"}"#, #""a_double":"NaN""#, #""a_date":"1970-01-01T00:00:00Z""#, #""a_decimal":"2.5""#] {
            #expect(first.contains(fragment), "missing \(fragment) in \(first)")
        }
    }

    @Test func statsAndVerifyOfAnImportedStore() throws {
        let dir = try TemporaryDirectory("cli-stats")
        defer { dir.remove() }
        let store = dir.appending("s.strata")
        _ = try StrataProcess.run(["create", store, "--model", FixturePaths.model("Employees-v1.json").path], in: dir.path)
        let input = """
        {"@entity": "Department", "@ref": "d", "name": "Sales"}
        {"@entity": "Employee", "name": "Ada", "department": {"@ref": "d"}}
        {"@entity": "Employee", "name": "Bob", "department": {"@ref": "d"}}
        """
        #expect(try StrataProcess.run(["import", store], input: input, in: dir.path).status == 0)

        let verify = try StrataProcess.run(["verify", store], in: dir.path)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.contains("sound"))
        #expect(verify.stdout.contains("objects: checked 3 objects of 2 entities: sound"))

        let stats = try StrataProcess.run(["stats", store, "--json"], in: dir.path)
        #expect(stats.status == 0, "\(stats.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
        let entities = json?["entities"] as? [String: Int]
        #expect(entities == ["Department": 1, "Employee": 2])
        #expect(json?["objects"] as? Int == 3)
        #expect(json?["formatVersion"] as? Int == Int(Format.version))
        #expect((json?["modelHash"] as? String)?.count == 64)
        #expect(json?["segmentBytes"] as? Int ?? 0 > 0)
        #expect(json?["garbageRatio"] != nil)

        let text = try StrataProcess.run(["stats", store], in: dir.path)
        #expect(text.status == 0)
        #expect(text.lines.contains { $0.hasPrefix("modelHash") })
        #expect(text.lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("Employee") && $0.hasSuffix(" 2") })
    }

    @Test func createIsANoOpForTheSameModelAndRefusesAnother() throws {
        let dir = try TemporaryDirectory("cli-create")
        defer { dir.remove() }
        let store = dir.appending("s.strata")
        let model = FixturePaths.model("Employees-v1.json").path
        #expect(try StrataProcess.run(["create", store, "--model", model], in: dir.path).status == 0)
        let again = try StrataProcess.run(["create", store, "--model", model], in: dir.path)
        #expect(again.status == 0)
        #expect(again.stdout.contains("nothing to do"))
        let other = try StrataProcess.run(["create", store, "--model", FixturePaths.model("Interviews.json").path], in: dir.path)
        #expect(other.status == 1)
        #expect(other.stderr.contains("another model"))
    }
}
