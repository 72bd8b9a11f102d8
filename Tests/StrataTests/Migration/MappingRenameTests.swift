import Foundation
import Testing
@testable import Strata
import StrataLog

/// Renames across versions: inferring each step and composing the steps carries a
/// v1 store through two renames; Growing v1 → v3 (scenario 6) both ways.
@Suite("Migration: chained renames and composition")
struct MigrationMappingRenameTests {
    @Test func growingV1ToV3ComposesLikeTheDirectInference() throws {
        let v1 = try MigrationFixtures.model("Growing-v1")
        let v2 = try MigrationFixtures.model("Growing-v2")
        let v3 = try MigrationFixtures.model("Growing-v3")
        let composed = try MappingModel.composed([
            MappingModel.inferred(from: v1, to: v2), MappingModel.inferred(from: v2, to: v3),
        ])
        #expect(composed.sourceModelHash == v1.versionHash)
        #expect(composed.destinationModelHash == v3.versionHash)
        #expect(composed.entityMappings.map(\.name) == ["PlantToSpecimen"])
        let specimen = try #require(composed.entityMappings.first)
        #expect(specimen.kind == .transform)
        #expect(specimen.attributeSummary == [
            "name": "name ← $source.name",
            "scientificName": "scientificName ← $source.species",
            "wateredAt": "wateredAt ← $source.wateredAt",
            "heightCm": "heightCm ← null ?? double(0.0)",
        ])
        // Old plants read 0 for the height added in v2.
        #expect(try specimen.attributeMapping(named: "heightCm")?.finalValue(from: .null) == .double(0))
        let direct = try MappingModel.inferred(from: v1, to: v3)
        #expect(direct.entityMappings.map(\.name) == ["PlantToSpecimen"])
        #expect(direct.entityMappings.first?.attributeMapping(named: "scientificName")?.valueExpression.keyPath == "species")
    }

    @Test func growingV2ToV3RenamesEntityAndAttribute() throws {
        let mapping = try MappingModel.inferred(
            from: MigrationFixtures.model("Growing-v2"), to: MigrationFixtures.model("Growing-v3"))
        let specimen = try #require(mapping.entityMapping(named: "PlantToSpecimen"))
        #expect(specimen.sourceEntityName == "Plant" && specimen.destinationEntityName == "Specimen")
        #expect(specimen.attributeMapping(named: "scientificName")?.valueExpression.keyPath == "species")
        #expect(mapping.entityMappings.count == 1)
    }

    /// Renaming identifiers name the previous version only: inferring v1 → v3 at once
    /// sees a new entity and a removed one (as Core Data would); composing through v2
    /// carries the objects over both renames.
    @Test func renamesChainThroughComposition() throws {
        let v1 = try ObjectModel(version: "1") { Entity("Task") { Attribute("title", .string) } }
        let v2 = try ObjectModel(version: "2") {
            Entity("Todo") { Attribute("name", .string).renamed(from: "title") }.renamed(from: "Task")
        }
        let v3 = try ObjectModel(version: "3") {
            Entity("Chore") { Attribute("label", .string).renamed(from: "name") }.renamed(from: "Todo")
        }
        #expect(try MappingModel.inferred(from: v1, to: v3).entityMappings.map(\.name) == ["AddChore", "RemoveTask"])
        let composed = try MappingModel.composed([
            MappingModel.inferred(from: v1, to: v2), MappingModel.inferred(from: v2, to: v3),
        ])
        #expect(composed.entityMappings.map(\.name) == ["TaskToChore"])
        #expect(composed.entityMappings.first?.attributeSummary == ["label": "label ← $source.title"])
    }

    @Test func compositionChainsConversionsDefaultsAndRemovals() throws {
        let v1 = try ObjectModel(version: "1") {
            Entity("Task") { Attribute("priority", .int16, optional: true) }
            Entity("Draft") { Attribute("text", .string) }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Task") { Attribute("priority", .int32, default: .int(1)) }
            Entity("Draft") { Attribute("text", .string) }
        }
        let v3 = try ObjectModel(version: "3") {
            Entity("Task") { Attribute("priority", .double, default: .double(1)) }
        }
        let composed = try MappingModel.composed([
            MappingModel.inferred(from: v1, to: v2), MappingModel.inferred(from: v2, to: v3),
        ])
        #expect(composed.entityMappings.map(\.name) == ["TaskToTask", "RemoveDraft"])
        let priority = try #require(composed.entityMappings.first?.attributeMapping(named: "priority"))
        #expect(priority.transforms == [
            .convert(from: .int16, to: .int32), .replaceNil(with: .int(1)), .convert(from: .int32, to: .double),
        ])
        #expect(try priority.finalValue(from: .null) == .double(1))
        #expect(try priority.finalValue(from: .int(3)) == .double(3))
    }

    @Test func compositionRefusesWhatNeedsIntermediateObjects() throws {
        let v1 = try ObjectModel(version: "1") { Entity("Event") { Attribute("timeStamp", .date) } }
        let v2 = try ObjectModel(version: "2") {
            Entity("Event") {
                Attribute("timeStamp", .date)
                Attribute("memo", .string)
            }
        }
        let custom = MappingModel(from: v2, to: v2, entityMappings: [
            EntityMapping(name: "EventToEvent", kind: .custom, sourceEntityName: "Event", destinationEntityName: "Event",
                          attributeMappings: [PropertyMapping(name: "memo", value: .closure { _ in .string("hi") })]),
        ])
        let first = MappingModel(from: v1, to: v2, entityMappings: [
            EntityMapping(name: "EventToEvent", kind: .transform, sourceEntityName: "Event", destinationEntityName: "Event",
                          attributeMappings: [
                            PropertyMapping(name: "timeStamp", value: .keyPath("timeStamp")),
                            PropertyMapping(name: "memo", value: .constant(.string("hello"))),
                          ]),
        ])
        #expect(throws: StrataError.self) { try MappingModel.composed([first, custom]) }
        #expect(throws: StrataError.self) { try MappingModel.composed([]) }
        #expect(throws: StrataError.self) { try MappingModel.composed([custom, first]) }
        // A constant in the earlier mapping reaches the end through a key path.
        let later = try MappingModel.inferred(from: v2, to: v2)
        let both = try MappingModel.composed([first, later])
        #expect(both.entityMappings.first?.attributeSummary["memo"] == "memo ← string(\"hello\")")
    }
}
