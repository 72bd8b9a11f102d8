import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataScenarios

@Suite("Model JSON files")
struct ModelJSONTests {
    /// A model that uses every attribute type, with a default and every option.
    static func everything() throws -> ObjectModel {
        let date = Date(timeIntervalSince1970: 1_714_564_800)  // whole seconds: ISO 8601
        let fractionalDate = Date(timeIntervalSince1970: 1_714_564_800.25)
        let composite = Data(#"{"items":[{"name":"gin","amount":4.5}],"note":"/ é \"q\""}"#.utf8)
        return try ObjectModel(version: "everything-1") {
            Entity("Base", abstract: true) {
                Attribute("created", .date, default: .date(date))
            }
            Entity("Sample", parent: "Base") {
                Attribute("flag", .bool, default: .bool(true))
                Attribute("small", .int16, default: .int(-32768)).minimum(.int(-32768)).maximum(.int(32767))
                Attribute("medium", .int32, default: .int(2_147_483_647))
                Attribute("large", .int64, default: .int(.min), indexed: true)
                    .minimum(.int(.min)).maximum(.int(.max))
                Attribute("single", .float, default: .double(0.1))
                Attribute("real", .double, default: .double(-1.5e-300)).minimum(.double(-.infinity))
                Attribute("notANumber", .double, optional: true, default: .double(.infinity))
                Attribute("price", .decimal, default: .decimal(Decimal(string: "12345678901234567890.125") ?? 0))
                    .minimum(.decimal(0))
                Attribute("title", .string, default: .string("Hello, \"world\" / ünïcode ✓\n"), unique: true)
                    .length(min: 0, max: 100).pattern(#"^[\w ]*$"#)
                Attribute("when", .date, optional: true, default: .date(fractionalDate))
                    .minimum(.date(Date(timeIntervalSince1970: 0))).maximum(.date(fractionalDate))
                Attribute("blob", .binary, optional: true, default: .binary(Data([0, 1, 2, 255])),
                          externalStorage: true)
                    .length(max: 1 << 20)
                Attribute("identifier", .uuid, default: .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()))
                Attribute("link", .url, optional: true, default: .url(URL(string: "https://example.com/a?b=c#d") ?? URL(fileURLWithPath: "/")))
                Attribute("ingredients", .composite, default: .composite(composite))
                Attribute("scratch", .string, optional: true, transient: true)
                Attribute("renamed", .string, optional: true).renamed(from: "oldName")
                Relationship("owner", to: "Owner", inverse: "samples", optional: false, deleteRule: .deny)
                Relationship("tags", to: "Tag", toMany: true, ordered: true, deleteRule: .noAction)
                    .withoutInverse().count(min: 1, max: 5).renamed(from: "labels")
            }
            Entity("Owner") {
                Relationship("samples", to: "Sample", inverse: "owner", toMany: true, deleteRule: .cascade)
            }
            .renamed(from: "User")
            Entity("Tag") { Attribute("label", .string) }
        }
    }

    @Test func roundTripGivesAnEqualModel() throws {
        let model = try Self.everything()
        let data = try model.jsonData()
        let read = try ObjectModel(jsonData: data)
        #expect(read == model)
        #expect(read.versionHash == model.versionHash)
        // Writing what was read gives the same bytes: the output is deterministic.
        #expect(try read.jsonData() == data)
    }

    @Test func roundTripKeepsEveryValue() throws {
        let read = try ObjectModel(jsonData: try Self.everything().jsonData())
        let sample = try #require(read.entity(named: "Sample"))
        #expect(sample.attributesByName["large"]?.defaultValue == .int(.min))
        #expect(sample.attributesByName["real"]?.defaultValue == .double(-1.5e-300))
        #expect(sample.attributesByName["real"]?.minimumValue == .double(-.infinity))
        #expect(sample.attributesByName["price"]?.defaultValue
            == .decimal(Decimal(string: "12345678901234567890.125") ?? 0))
        #expect(sample.attributesByName["when"]?.defaultValue
            == .date(Date(timeIntervalSince1970: 1_714_564_800.25)))
        #expect(sample.attributesByName["blob"]?.defaultValue == .binary(Data([0, 1, 2, 255])))
        #expect(sample.attributesByName["scratch"]?.isTransient == true)
        #expect(sample.relationshipsByName["tags"]?.waivesInverse == true)
        #expect(read.entity(named: "Owner")?.renamingIdentifier == "User")
    }

    @Test func nanSurvivesAsText() throws {
        let model = try ObjectModel(version: "1") {
            Entity("Reading") { Attribute("value", .double, default: .double(.nan)) }
        }
        let text = String(decoding: try model.jsonData(), as: UTF8.self)
        #expect(text.contains(#""default" : "NaN""#))
        let read = try ObjectModel(jsonData: try model.jsonData())
        guard case .double(let value)? = read.entity(named: "Reading")?.attributesByName["value"]?.defaultValue
        else {
            Issue.record("expected a double default")
            return
        }
        #expect(value.isNaN)
    }

    @Test func writtenFileLeavesDefaultsOut() throws {
        let model = try EmployeesScenario.v1()
        let text = String(decoding: try model.jsonData(), as: UTF8.self)
        #expect(text.contains(#""formatVersion" : 1"#))
        #expect(!text.contains("transient"))
        #expect(!text.contains("waivesInverse"))
        #expect(text.contains(#""deleteRule" : "cascade""#))
        #expect(!text.contains(#""deleteRule" : "nullify""#))
    }

    @Test func readsAHandWrittenFile() throws {
        let json = """
            {
              "formatVersion": 1,
              "version": "1",
              "entities": [
                {
                  "name": "Task",
                  "properties": [
                    { "kind": "attribute", "name": "title", "type": "string" },
                    { "kind": "attribute", "name": "done", "type": "bool", "default": false },
                    { "kind": "attribute", "name": "due", "type": "date", "optional": true,
                      "minimum": "2000-01-01T00:00:00.500Z" },
                    { "kind": "attribute", "name": "weight", "type": "double", "default": 1 },
                    { "kind": "attribute", "name": "price", "type": "decimal", "default": "0.10" },
                    { "kind": "attribute", "name": "note", "type": "string", "optional": true, "default": null }
                  ]
                }
              ]
            }
            """
        let model = try ObjectModel(jsonData: Data(json.utf8))
        let task = try #require(model.entity(named: "Task"))
        #expect(task.attributesByName["done"]?.defaultValue == .bool(false))
        #expect(task.attributesByName["weight"]?.defaultValue == .double(1))
        #expect(task.attributesByName["price"]?.defaultValue == .decimal(Decimal(string: "0.1") ?? 0))
        #expect(task.attributesByName["note"]?.defaultValue == nil)
        #expect(task.attributesByName["due"]?.minimumValue
            == .date(Date(timeIntervalSince1970: 946_684_800.5)))
    }

    /// The example in docs/MODEL.md must stay a valid model file.
    @Test func documentedExampleReads() throws {
        let docs = ModelTestSupport.fixturesDirectory
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/MODEL.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let start = try #require(text.range(of: "### Example\n\n```json\n"))
        let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
        let model = try ObjectModel(jsonData: Data(text[start.upperBound..<end.lowerBound].utf8))
        #expect(model.entities.map(\.name) == ["Badge", "Department", "Employee"])
        #expect(model.entity(named: "Employee")?.attributesByName["hired"]?.defaultValue
            == .date(Date(timeIntervalSince1970: 1_704_067_200)))
    }

    @Test func contentsOfAndWrite() throws {
        let directory = try TemporaryDirectory("model-json")
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.appending("Employees.json"))
        let model = try EmployeesScenario.v1()
        try model.write(to: url)
        #expect(try ObjectModel(contentsOf: url) == model)
    }

    @Test func missingFile() {
        #expect {
            try ObjectModel(contentsOf: URL(fileURLWithPath: "/nonexistent/strata/Model.json"))
        } throws: { error in
            (error as? StrataError)?.code == .notFound
                && (error as? StrataError)?.path == "/nonexistent/strata/Model.json"
        }
    }

    // MARK: Errors

    static func error(reading json: String) -> StrataError? {
        do {
            _ = try ObjectModel(jsonData: Data(json.utf8))
            return nil
        } catch {
            return error as? StrataError
        }
    }

    static func file(_ property: String) -> String {
        """
        { "formatVersion": 1, "version": "1", "entities": [
          { "name": "Task", "properties": [ \(property) ] } ] }
        """
    }

    @Test func unknownKeyIsAnError() throws {
        let error = try #require(Self.error(reading: Self.file(
            #"{ "kind": "attribute", "name": "title", "type": "string", "optinal": true }"#)))
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("optinal"))
        #expect(error.message.contains("entities[0].properties[0]"))
    }

    @Test func relationshipKeyOnAnAttributeIsAnError() throws {
        let error = try #require(Self.error(reading: Self.file(
            #"{ "kind": "attribute", "name": "title", "type": "string", "toMany": true }"#)))
        #expect(error.message.contains("toMany"))
    }

    @Test func unknownKindIsAnError() throws {
        let error = try #require(Self.error(reading: Self.file(#"{ "kind": "fetchedProperty", "name": "x" }"#)))
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("fetchedProperty"))
    }

    @Test func unknownTypeIsAnError() throws {
        let error = try #require(Self.error(reading: Self.file(
            #"{ "kind": "attribute", "name": "title", "type": "text" }"#)))
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("entities[0].properties[0].type"))
    }

    @Test func missingKeyIsAnError() throws {
        let error = try #require(Self.error(reading: Self.file(#"{ "kind": "attribute", "name": "title" }"#)))
        #expect(error.message.contains("'type'"))
    }

    @Test func defaultThatDoesNotFitNamesEntityAndProperty() throws {
        let error = try #require(Self.error(reading: Self.file(
            #"{ "kind": "attribute", "name": "done", "type": "bool", "default": "no" }"#)))
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("Task.done"))
        #expect(error.context["entity"] == "Task" && error.context["property"] == "done")
    }

    @Test(arguments: [
        #""type": "int64", "default": 1.5"#,
        #""type": "decimal", "default": "12abc""#,
        #""type": "decimal", "default": 0.1"#,
        #""type": "date", "default": "yesterday""#,
        #""type": "uuid", "default": "123""#,
        #""type": "binary", "default": "not base64!""#,
        #""type": "double", "default": "lots""#,
        #""type": "int16", "default": 70000"#,
    ])
    func badValues(fields: String) throws {
        let error = try #require(Self.error(reading: Self.file(
            #"{ "kind": "attribute", "name": "field", "#+fields+" }")))
        #expect(error.code == .invalidModel)
        #expect(error.context["entity"] == "Task" && error.context["property"] == "field", "\(error)")
    }

    @Test func wrongFormatVersion() throws {
        let error = try #require(Self.error(reading: #"{ "formatVersion": 2, "version": "1", "entities": [] }"#))
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("format version 2"))
    }

    @Test func notJSON() throws {
        let error = try #require(Self.error(reading: "{ entities: "))
        #expect(error.code == .invalidModel)
    }

    @Test func validationErrorsCarryTheFilePath() throws {
        let directory = try TemporaryDirectory("model-json")
        defer { directory.remove() }
        let path = directory.appending("Bad.json")
        try Data(Self.file(#"{ "kind": "relationship", "name": "owner", "destination": "User" }"#).utf8)
            .write(to: URL(fileURLWithPath: path))
        #expect {
            try ObjectModel(contentsOf: URL(fileURLWithPath: path))
        } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.code == .invalidModel && error.path == path
                && error.context["entity"] == "Task" && error.context["property"] == "owner"
        }
    }
}
