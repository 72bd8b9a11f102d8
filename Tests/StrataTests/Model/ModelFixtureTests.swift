import Foundation
import Testing
@testable import Strata
import StrataScenarios

@Suite("Model fixtures")
struct ModelFixtureTests {
    static let expectedFiles = [
        "Employees-v1.json", "Employees-v2.json",
        "Tasks-v1.json", "Tasks-v2-latitude.json", "Tasks-v2-latitude-required-no-default.json",
        "Tasks-v2-latitude-required-default.json", "Tasks-v2-due-required-no-default.json",
        "Tasks-v2-due-required-default.json", "Tasks-v2-remove-attribute.json",
        "Tasks-v2-rename-todo.json", "Tasks-v2-rename-title.json",
        "Events-v1.json", "Events-v2.json",
        "Interviews.json",
        "TastingNotes-v1.json", "TastingNotes-v2.json",
        "Growing-v1.json", "Growing-v2.json", "Growing-v3.json", "Growing-v4.json",
    ]

    static func load(_ name: String) throws -> ObjectModel {
        try ObjectModel(contentsOf: ModelTestSupport.fixturesDirectory.appendingPathComponent(name))
    }

    @Test func everyFixtureFileValidates() throws {
        let names = try FileManager.default
            .contentsOfDirectory(atPath: ModelTestSupport.fixturesDirectory.path)
            .filter { $0.hasSuffix(".json") }
        #expect(Set(names).isSuperset(of: Self.expectedFiles))
        for name in names.sorted() {
            let model = try Self.load(name)
            #expect(!model.entities.isEmpty, "\(name)")
            // A fixture survives the writer unchanged.
            #expect(try ObjectModel(jsonData: try model.jsonData()) == model, "\(name)")
        }
    }

    /// Scenario 1 is defined once, in `EmployeesScenario`: its JSON files are the same models.
    @Test func employeesFilesAreTheScenarioModels() throws {
        #expect(try Self.load("Employees-v1.json") == (try EmployeesScenario.v1()))
        #expect(try Self.load("Employees-v2.json") == (try EmployeesScenario.v2()))
    }

    @Test func employeesV2MovesThePhoto() throws {
        let v2 = try Self.load("Employees-v2.json")
        let employee = try #require(v2.entity(named: "Employee"))
        #expect(employee.attributesByName["photo"] == nil)
        #expect(employee.relationshipsByName["profile"]?.deleteRule == .cascade)
        #expect(v2.entity(named: "Photo")?.attributesByName["photo"]?.allowsExternalStorage == true)
        #expect(v2.versionHash != (try Self.load("Employees-v1.json")).versionHash)
    }

    @Test func everyVersionOfAScenarioHasItsOwnHash() throws {
        // Defaults do not count in the hash, so the two "required" variants of each
        // Tasks change share a hash: they differ only in whether migration can fill in.
        let groups = [
            Self.expectedFiles.filter { $0.hasPrefix("Tasks") && !$0.hasSuffix("-required-default.json") },
            ["Events-v1.json", "Events-v2.json"],
            ["TastingNotes-v1.json", "TastingNotes-v2.json"],
            ["Growing-v1.json", "Growing-v2.json", "Growing-v3.json", "Growing-v4.json"],
        ]
        for group in groups {
            let hashes = try group.map { try Self.load($0).versionHash }
            #expect(Set(hashes).count == group.count, "\(group)")
        }
    }

    @Test func requiredVariantsDifferOnlyInTheDefault() throws {
        for change in ["latitude", "due"] {
            let withDefault = try Self.load("Tasks-v2-\(change)-required-default.json")
            let without = try Self.load("Tasks-v2-\(change)-required-no-default.json")
            #expect(withDefault.versionHash == without.versionHash)
            #expect(withDefault != without)
        }
    }

    @Test func taskVariantsSayWhatTheScenarioNeeds() throws {
        let latitude = try Self.load("Tasks-v2-latitude.json").entity(named: "Task")?.attributesByName["latitude"]
        #expect(latitude?.isOptional == true && latitude?.defaultValue == .double(0))
        let required = try Self.load("Tasks-v2-latitude-required-no-default.json")
            .entity(named: "Task")?.attributesByName["latitude"]
        #expect(required?.isOptional == false && required?.defaultValue == nil)
        let todo = try Self.load("Tasks-v2-rename-todo.json")
        #expect(todo.entity(named: "Todo")?.renamingIdentifier == "Task")
        let renamedTitle = try Self.load("Tasks-v2-rename-title.json").entity(named: "Task")
        #expect(renamedTitle?.attributesByName["name"]?.renamingIdentifier == "title")
        let task = try Self.load("Tasks-v1.json").entity(named: "Task")
        #expect(task?.attributesByName["done"]?.defaultValue == .bool(false))
        #expect(task?.attributesByName["due"]?.isOptional == true)
    }

    @Test func interviewsHaveTheRulesScenarioFourChecks() throws {
        let model = try Self.load("Interviews.json")
        let subject = try #require(model.entity(named: "Subject"))
        #expect(subject.isKind(of: "Person"))
        #expect(subject.attributesByName["age"]?.type == .int64)
        #expect(subject.attributesByName["displayName"]?.isTransient == true)
        let questions = try #require(subject.relationshipsByName["questions"])
        #expect(questions.minimumCount == 1 && questions.deleteRule == .cascade && questions.isToMany)
        let record = try #require(model.entity(named: "Question")?.relationshipsByName["record"])
        #expect(!record.isToMany && record.deleteRule == .cascade)
        let rules = Set(model.entities.flatMap(\.relationships).map(\.deleteRule))
        #expect(rules == Set(DeleteRule.allCases))
    }

    @Test func tastingNotesV2SharesFieldsThroughAnAbstractEntity() throws {
        let v2 = try Self.load("TastingNotes-v2.json")
        let base = try #require(v2.entity(named: "TastingNote"))
        #expect(base.isAbstract)
        #expect(base.allSubentityNames.count == 4)
        let wine = try #require(v2.entity(named: "WineTastingNote"))
        #expect(wine.attributesByName["ingredients"]?.type == .composite)
        #expect(wine.attributesByName["ingredients"]?.defaultValue == .composite(Data("[]".utf8)))
        let v1 = try Self.load("TastingNotes-v1.json")
        #expect(v1.entities.map(\.name) == ["CocktailNote", "CoffeeNote", "User", "WhiskeyNote", "WineNote"])
    }

    @Test func growingStagesRenameAndSplit() throws {
        let v3 = try Self.load("Growing-v3.json")
        let specimen = try #require(v3.entity(named: "Specimen"))
        #expect(specimen.renamingIdentifier == "Plant")
        #expect(specimen.attributesByName["scientificName"]?.renamingIdentifier == "species")
        let v4 = try Self.load("Growing-v4.json")
        #expect(v4.entity(named: "Specimen")?.attributesByName["wateredAt"] == nil)
        #expect(v4.entity(named: "Watering")?.relationshipsByName["specimen"]?.inverseName == "waterings")
    }
}
