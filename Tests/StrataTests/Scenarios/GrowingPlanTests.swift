import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Scenario 6: a store written by v1 opens under a plan v1 → v2 → v3 → v4 (add an
/// attribute, rename through renaming identifiers, split an attribute into an entity
/// by a custom policy) and arrives at v4 in one open, each stage in order — and the
/// batch bound holds on a store many batches large.
final class WateringSplitPolicy: EntityMigrationPolicy, @unchecked Sendable {
    override func createDestinationInstances(forSource plant: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
        try super.createDestinationInstances(forSource: plant, mapping: mapping, manager: manager)
        guard let date = try plant.date("wateredAt"),
              let specimen = try manager.destinationInstances(forEntityMapping: mapping.name, sourceInstances: [plant]).first else { return }
        let watering = try manager.destinationContext.insert("Watering")
        try watering.setValue(date, forKey: "date")
        try watering.setObject(specimen, forKey: "specimen")
    }
}

@Suite struct GrowingPlanTests {
    static func models() throws -> [ObjectModel] {
        try (1...4).map { try ObjectModel(contentsOf: FixturePaths.model("Growing-v\($0).json")) }
    }

    static func plan(_ m: [ObjectModel]) throws -> MigrationPlan {
        var split = try MappingModel.inferred(from: m[2], to: m[3])
        for index in split.entityMappings.indices where split.entityMappings[index].destinationEntityName == "Specimen" {
            split.entityMappings[index].kind = .custom
            split.entityMappings[index].policyFactory = { WateringSplitPolicy() }
        }
        return MigrationPlan(models: m, stages: [
            .lightweight(from: m[0], to: m[1]),
            .lightweight(from: m[1], to: m[2]),
            .custom(from: m[2], to: m[3], mapping: split),
        ])
    }

    @Test func aV1StoreArrivesAtV4InOneOpen() throws {
        let dir = try TemporaryDirectory("growing")
        defer { dir.remove() }
        let m = try Self.models()
        let plants = 230
        do {
            let store = try StoreUnderTest.open(at: dir.path, model: m[0])
            let context = store.newContext()
            for i in 0..<plants {
                let plant = try context.insert("Plant")
                try plant.setValue("Plant \(i)", forKey: "name")
                try plant.setValue("Species \(i % 7)", forKey: "species")
                if i % 2 == 0 { try plant.setValue(Date(timeIntervalSince1970: Double(i) * 3600), forKey: "wateredAt") }
            }
            try context.save()
            try store.close()
        }
        var options = StoreOptions()
        options.migration = .plan(try Self.plan(m))
        options.migrationBatchSize = 16
        let progress = ProgressLog()
        options.migrationProgress = { progress.append($0) }
        let store = try StoreUnderTest.open(at: dir.path, model: m[3], options: options)
        defer { try? store.close() }

        let stages = progress.entries.map(\.stage)
        #expect(stages == stages.sorted(), "stages ran in order")
        #expect(Set(stages) == [0, 1, 2])
        let largest = progress.entries.map(\.largestBatch).max() ?? .max
        #expect(largest <= 3 * 16 + 2, "batch bound on a store of \(plants) objects (largest \(largest))")

        let context = store.newContext()
        let specimens = try context.fetch(FetchRequest(entityName: "Specimen", sortKeys: [.ascending("name")]))
        #expect(specimens.count == plants)
        #expect(try context.count(for: FetchRequest(entityName: "Watering")) == plants / 2)
        let zero = try #require(specimens.first { try $0.string("name") == "Plant 0" })
        #expect(try zero.string("scientificName") == "Species 0")
        #expect(try zero.double("heightCm") == 0)
        #expect(try zero.objects("waterings").first?.date("date") == Date(timeIntervalSince1970: 0))
        #expect(try store.verify().isSound)
    }
}
