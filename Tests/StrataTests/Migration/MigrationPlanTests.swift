import Foundation
import Testing
@testable import Strata
import StrataLog

/// Scenario 6's plan (Growing v1 → v4, mixed stages): path finding from every
/// version, and validation of plans that do not hold together.
@Suite("Migration: staged plans")
struct MigrationPlanTests {
    /// Splits `wateredAt` into a Watering; the body is the manager's business.
    final class WateringSplitPolicy: EntityMigrationPolicy {
        override func createDestinationInstances(
            forSource source: ManagedObject, mapping: EntityMapping, manager: MigrationManager
        ) throws {
            try super.createDestinationInstances(forSource: source, mapping: mapping, manager: manager)
        }
    }

    let v1: ObjectModel, v2: ObjectModel, v3: ObjectModel, v4: ObjectModel

    init() throws {
        v1 = try MigrationFixtures.model("Growing-v1")
        v2 = try MigrationFixtures.model("Growing-v2")
        v3 = try MigrationFixtures.model("Growing-v3")
        v4 = try MigrationFixtures.model("Growing-v4")
    }

    var wateringSplit: MappingModel {
        MappingModel(from: v3, to: v4, entityMappings: [
            EntityMapping(
                name: "SpecimenToSpecimen", kind: .custom, sourceEntityName: "Specimen", destinationEntityName: "Specimen",
                attributeMappings: ["name", "scientificName", "heightCm"].map {
                    PropertyMapping(name: $0, value: .keyPath($0))
                },
                policy: { WateringSplitPolicy() }),
        ])
    }

    var plan: MigrationPlan {
        MigrationPlan(models: [v1, v2, v3, v4], stages: [
            .lightweight(from: v1, to: v2),
            .custom(from: v2, to: v3, willMigrate: { _ in MigrationCarry(["seen": .bool(true)]) },
                    didMigrate: { _, carry in
                        guard carry["seen"] == .bool(true) else { throw StrataError(.migrationFailed, "lost carry") }
                    }),
            .custom(from: v3, to: v4, mapping: wateringSplit),
        ])
    }

    @Test func pathFromEveryVersion() throws {
        try plan.validate()
        #expect(try plan.path(fromHash: v1.versionHash).map(\.label) == ["'1' → '2'", "'2' → '3'", "'3' → '4'"])
        #expect(try plan.path(fromHash: v2.versionHash).map(\.label) == ["'2' → '3'", "'3' → '4'"])
        #expect(try plan.path(fromHash: v3.versionHash).map(\.label) == ["'3' → '4'"])
        #expect(try plan.path(fromHash: v4.versionHash).isEmpty)
        #expect(plan.newestModel?.versionHash == v4.versionHash)
        #expect(plan.model(withHash: v2.versionHash)?.versionIdentifier == "2")
    }

    @Test func stagesGiveTheirMappings() throws {
        let stages = try plan.path(fromHash: v1.versionHash)
        #expect(stages.map(\.kind) == [.lightweight, .custom, .custom])
        let first = try stages[0].mappingModel()
        #expect(first.entityMapping(named: "PlantToPlant")?.attributeMapping(named: "heightCm") != nil)
        // A hooks stage migrates its data with the inferred mapping.
        #expect(try stages[1].mappingModel().entityMappings.map(\.name) == ["PlantToSpecimen"])
        #expect(stages[1].willMigrate != nil && stages[1].didMigrate != nil)
        let custom = try stages[2].mappingModel()
        let mapping = try #require(custom.entityMapping(named: "SpecimenToSpecimen"))
        #expect(mapping.hasCustomPolicy)
        #expect(mapping.makePolicy() is WateringSplitPolicy)
        // A fresh policy per migration, so a subclass may keep state.
        #expect(mapping.makePolicy() !== mapping.makePolicy())
        #expect(!(EntityMapping(name: "x", kind: .copy, sourceEntityName: "A", destinationEntityName: "A")
            .makePolicy() is WateringSplitPolicy))
    }

    @Test func unknownStoreHashIsNamed() throws {
        let tasks = try MigrationFixtures.model("Tasks-v1")
        do {
            _ = try plan.path(fromHash: tasks.versionHash)
            Issue.record("expected an error")
        } catch let error as StrataError {
            #expect(error.code == .noMigrationPath)
            #expect(error.message.contains(tasks.versionHash))
            #expect(error.message.contains(v1.versionHash))
            #expect(error.context["storeHash"] == tasks.versionHash)
            #expect(error.context["knownHashes"]?.split(separator: ",").count == 4)
        }
    }

    private func expectInvalid(_ plan: MigrationPlan, _ fragments: [String],
                               sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try plan.validate()
            Issue.record("expected an invalid plan", sourceLocation: sourceLocation)
        } catch let error as StrataError {
            #expect(error.code == .migrationFailed, sourceLocation: sourceLocation)
            for fragment in fragments {
                #expect(error.message.contains(fragment), "\(error.message)", sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
        #expect(throws: StrataError.self, sourceLocation: sourceLocation) { try plan.path(fromHash: v1.versionHash) }
    }

    @Test func invalidPlans() throws {
        expectInvalid(MigrationPlan(models: [], stages: []), ["lists no model"])
        expectInvalid(MigrationPlan(models: [v1, v2, v3], stages: [.lightweight(from: v1, to: v2)]),
                      ["no stage goes from '2' → '3'"])
        expectInvalid(MigrationPlan(models: [v1, v2, v3], stages: [.lightweight(from: v1, to: v3)]),
                      ["stage '1' → '3' does not go from a listed version to the next one"])
        expectInvalid(MigrationPlan(models: [v1, v2, v3], stages: [
            .lightweight(from: v2, to: v3), .lightweight(from: v1, to: v2),
        ]), ["stage '1' → '2' is listed out of order"])
        expectInvalid(MigrationPlan(models: [v1, v2], stages: [
            .lightweight(from: v1, to: v2), .lightweight(from: v1, to: v2),
        ]), ["2 stages go from '1' → '2'"])
        expectInvalid(MigrationPlan(models: [v1, v3], stages: [.lightweight(from: v1, to: v2)]),
                      ["destination model (hash \(v2.versionHash)) is not listed"])
        expectInvalid(MigrationPlan(models: [v1, v2], stages: [.custom(from: v1, to: v2, mapping: wateringSplit)]),
                      ["its mapping model goes from hash \(v3.versionHash)"])
        let copy = try ObjectModel(version: "1b", entities: v1.entities)
        expectInvalid(MigrationPlan(models: [v1, copy], stages: [.lightweight(from: v1, to: copy)]),
                      ["models '1' and '1b' have the same version hash"])
    }

    @Test func aLightweightStageThatCannotBeInferredIsRefusedUpFront() throws {
        let tasks = try MigrationFixtures.model("Tasks-v1")
        let latitude = try MigrationFixtures.model("Tasks-v2-latitude-required-no-default")
        let plan = MigrationPlan(models: [tasks, latitude], stages: [.lightweight(from: tasks, to: latitude)])
        expectInvalidTasks(plan, tasks)
        #expect(throws: StrataError.self) { try plan.stages[0].mappingModel() }
    }

    private func expectInvalidTasks(_ plan: MigrationPlan, _ tasks: ObjectModel) {
        do {
            _ = try plan.path(fromHash: tasks.versionHash)
            Issue.record("expected a refusal")
        } catch let error as StrataError {
            #expect(error.message.contains(
                "stage '1' → '2': Task.latitude: new non-optional attribute without a default value"), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func carryHandsValuesExplicitly() throws {
        var carry = MigrationCarry()
        #expect(carry.isEmpty)
        carry["count"] = .int(3)
        carry.set(["Negroni": ["gin", "vermouth", "campari"]], for: "recipes")
        #expect(carry["count"] == .int(3))
        #expect(carry.value(for: "recipes", as: [String: [String]].self)?["Negroni"]?.count == 3)
        #expect(carry.value(for: "recipes", as: Int.self) == nil)
        #expect(carry.keys == ["count", "recipes"])
        carry["count"] = nil
        #expect(carry.keys == ["recipes"])
    }
}
