import Foundation
import Testing
@testable import Strata
import StrataScenarios

/// Compound uniqueness constraints in the model: the DSL, the JSON model file and
/// validation.
@Suite("Model uniqueness constraints")
struct ModelUniquenessConstraintTests {
    static func people(_ constraints: [[String]]) throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Person", uniquenessConstraints: constraints) {
                Attribute("firstName", .string)
                Attribute("lastName", .string)
                Attribute("nickname", .string, optional: true)
                Attribute("scratch", .string, optional: true, transient: true)
                Relationship("team", to: "Team", inverse: "members")
            }
            Entity("Team") {
                Attribute("name", .string)
                Relationship("members", to: "Person", inverse: "team", toMany: true)
            }
            Entity("Player", parent: "Person") { Attribute("number", .int16) }
                .unique("lastName", "number")
        }
    }

    @Test func theDSLDeclaresThemAndTheModelSortsThem() throws {
        let model = try Self.people([["lastName", "firstName"]])
        #expect(model.entity(named: "Person")?.uniquenessConstraints == [["firstName", "lastName"]])
        // A sub-entity's constraint may name inherited attributes.
        #expect(model.entity(named: "Player")?.uniquenessConstraints == [["lastName", "number"]])
        let rules = model.uniquenessRules(of: try #require(model.entity(named: "Player")))
        #expect(rules.map(\.declaring) == ["Person", "Player"])
    }

    @Test func theJSONFileRoundTripsThem() throws {
        let model = try Self.people([["firstName", "lastName"], ["nickname", "lastName"]])
        let data = try model.jsonData()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"uniquenessConstraints\""))
        let read = try ObjectModel(jsonData: data)
        #expect(read == model)
        #expect(read.versionHash == model.versionHash)
        #expect(try read.jsonData() == data)
        // Without constraints the key is left out, so older files read the same.
        let plain = try EmployeesScenario.v1()
        #expect(!String(decoding: try plain.jsonData(), as: UTF8.self).contains("uniquenessConstraints"))
    }

    @Test func aModelFileDeclaresThem() throws {
        let json = """
            {"formatVersion": 1, "version": "1", "entities": [
              {"name": "Person", "uniquenessConstraints": [["firstName", "lastName"]],
               "properties": [
                 {"kind": "attribute", "name": "firstName", "type": "string"},
                 {"kind": "attribute", "name": "lastName", "type": "string"}]}]}
            """
        let model = try ObjectModel(jsonData: Data(json.utf8))
        #expect(model.entity(named: "Person")?.uniquenessConstraints == [["firstName", "lastName"]])
    }

    @Test(arguments: [
        ([[String]()], "names no attribute"),
        ([["firstName", "team"]], "'team' is a relationship"),
        ([["firstName", "nope"]], "'nope' is not an attribute"),
        ([["firstName", "scratch"]], "'scratch' is transient"),
        ([["firstName", "firstName"]], "names an attribute twice"),
        ([["firstName", "lastName"], ["lastName", "firstName"]], "twice"),
    ])
    func invalidConstraintsAreRefusedNamingTheEntity(constraints: [[String]], problem: String) throws {
        let error = #expect(throws: StrataError.self) { try Self.people(constraints) }
        #expect(error?.code == .invalidModel)
        #expect(error?.context["entity"] == "Person")
        #expect(error?.message.contains(problem) == true, "\(String(describing: error))")
    }
}
