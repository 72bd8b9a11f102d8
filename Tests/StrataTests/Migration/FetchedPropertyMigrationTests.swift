import Foundation
import Testing
@testable import Strata
import StrataLog
import StrataTestSupport

/// Fetched properties and fetch request templates are part of the model, not of the
/// records: a migration (inferred, staged, or through a composed mapping) keeps them
/// wherever the destination model has them, renamed entities included, and the store
/// records them in its model.
@Suite("Migration: fetched properties and templates survive")
struct FetchedPropertyMigrationTests {
    @Test func anInferredMigrationWithAnEntityRenameKeepsThem() throws {
        let dir = try TemporaryDirectory("fetched-migrate-inferred")
        defer { dir.remove() }
        let path = dir.appending("company.strata")
        let v1 = try FetchedPropertyTests.model("1", fetched: true)
        let v2 = try FetchedPropertyTests.model("2", departmentEntity: "Team", renamed: true, fetched: true)
        try FetchedPropertyTests.seed(path, model: v1)
        var options = StoreOptions()
        options.migration = .inferred
        try ObjectStore(at: path, model: v2, options: options).close()

        let store = try ObjectStore(at: path, model: v2)
        try FetchedPropertyTests.checkEvaluation(store, department: "Team")
        let recorded = try #require(try ObjectStore.storedModel(in: store.records))
        #expect(recorded == v2, "the store records the model with its fetched properties and templates")
        #expect(recorded.fetchedProperty(named: "wellPaid", of: "Team") != nil)
        try store.close()
    }

    @Test func aStagedPlanAndAComposedMappingKeepThem() throws {
        let v1 = try FetchedPropertyTests.model("1", fetched: false)
        let v2 = try FetchedPropertyTests.model("2", departmentEntity: "Team", renamed: true, fetched: true)
        // v3: one more attribute, the same fetched properties and templates.
        let base = try FetchedPropertyTests.model("3", departmentEntity: "Team", fetched: true)
        let v3 = try ObjectModel(version: "3", entities: base.entities.map { entity in
            var entity = entity
            if entity.name == "Employee" {
                entity.declaredProperties.append(.attribute(AttributeDescription(name: "level", type: .int16, defaultValue: .int(1))))
            }
            return entity
        }, fetchRequestTemplates: base.fetchRequestTemplates)
        #expect(v3.fetchedProperty(named: "colleagues", of: "Manager") != nil)

        let dir = try TemporaryDirectory("fetched-migrate-staged")
        defer { dir.remove() }
        let staged = dir.appending("staged.strata")
        try FetchedPropertyTests.seed(staged, model: v1)
        var options = StoreOptions()
        options.migration = .plan(MigrationPlan(models: [v1, v2, v3], stages: [.lightweight(from: v1, to: v2), .lightweight(from: v2, to: v3)]))
        var store = try ObjectStore(at: staged, model: v3, options: options)
        try FetchedPropertyTests.checkEvaluation(store, department: "Team")
        #expect(try ObjectStore.storedModel(in: store.records) == v3)
        try store.close()

        let composedPath = dir.appending("composed.strata")
        try FetchedPropertyTests.seed(composedPath, model: v1)
        let composed = try MappingModel.composed([MappingModel.inferred(from: v1, to: v2), MappingModel.inferred(from: v2, to: v3)])
        options.migration = .mappings([composed], models: [v3])
        store = try ObjectStore(at: composedPath, model: v3, options: options)
        try FetchedPropertyTests.checkEvaluation(store, department: "Team")
        #expect(try ObjectStore.storedModel(in: store.records) == v3)
        let context = store.newContext()
        #expect(try context.fetch(FetchRequest(entityName: "Employee")).allSatisfy { try $0.int("level") == 1 })
        try store.close()
    }
}
