import Foundation
import Testing
@testable import Strata
import StrataLog
import StrataTestSupport

/// A transformable attribute goes through a migration byte for byte: the stored bytes
/// are the transformer's, and nothing decodes or re-encodes them on the way.
@Suite("Migration: transformable attributes")
struct TransformableMigrationTests {
    @Test func transformedBytesCopyThroughAnInferredMigrationByteForByte() throws {
        let name = "TinyImage-\(UUID().uuidString.prefix(8))"
        try ValueTransformerTests.register(name)
        defer { ValueTransformers.unregister(named: name) }
        let dir = try TemporaryDirectory("transformable-migration")
        defer { dir.remove() }
        let path = dir.appending("customers.strata")
        let v1 = try ValueTransformerTests.model("1", transformer: name)
        let v2 = try ValueTransformerTests.model("2", transformer: name, extra: true)
        var expected: [String: (Data?, Data?)] = [:]
        let store = try ObjectStore(at: path, model: v1)
        let context = store.newContext()
        for index in 0..<40 {
            let customer = try context.insert("Customer")
            try customer.setValue("c\(index)", forKey: "name")
            if index % 3 != 0 {
                let size = index % 2 == 0 ? 20_000 : 5
                try customer.setTransformedValue(
                    TinyImage(width: UInt8(index), height: 1, pixels: (0..<size).map { UInt8(($0 + index) % 256) }), forKey: "avatar")
            }
            if index % 4 != 0 {
                try customer.setTransformedValue(Preferences(theme: "t\(index)", fontSize: index), forKey: "preferences")
            }
            expected["c\(index)"] = (try customer.data("avatar"), try customer.data("preferences"))
        }
        try context.save()
        try store.close()

        var options = StoreOptions()
        options.migration = .inferred
        options.migrationBatchSize = 7
        let migrated = try ObjectStore(at: path, model: v2, options: options)
        try migrated.close()
        let reopened = try ObjectStore(at: path, model: v2)
        let after = reopened.newContext()
        let customers = try after.fetch(FetchRequest(entityName: "Customer"))
        #expect(customers.count == 40)
        for customer in customers {
            let key = try #require(try customer.string("name"))
            let (avatar, preferences) = try #require(expected[key])
            #expect(try customer.data("avatar") == avatar, "\(key)")
            #expect(try customer.data("preferences") == preferences, "\(key)")
            #expect(try customer.int("loyalty") == 0)
            if avatar != nil { #expect(try customer.transformedValue(forKey: "avatar", as: TinyImage.self) != nil) }
        }
        #expect(try reopened.verify().isSound)
        try reopened.close()
    }

    @Test func aChangedTransformerIsNotInferredAndTheStoreIsUnchanged() throws {
        let (old, new) = ("Old-\(UUID().uuidString.prefix(8))", "New-\(UUID().uuidString.prefix(8))")
        try ValueTransformerTests.register(old)
        try ValueTransformerTests.register(new)
        defer {
            ValueTransformers.unregister(named: old)
            ValueTransformers.unregister(named: new)
        }
        let dir = try TemporaryDirectory("transformable-changed")
        defer { dir.remove() }
        let path = dir.appending("customers.strata")
        let v1 = try ValueTransformerTests.model("1", transformer: old)
        let v2 = try ValueTransformerTests.model("2", transformer: new)
        let store = try ObjectStore(at: path, model: v1)
        let context = store.newContext()
        let customer = try context.insert("Customer")
        try customer.setValue("c", forKey: "name")
        try customer.setTransformedValue(TinyImage(width: 1, height: 1, pixels: [1]), forKey: "avatar")
        try context.save()
        try store.close()
        let before = try DirectorySnapshot(path)

        let problems = MappingModel.inferenceProblems(from: v1, to: v2)
        #expect(problems.map(\.entity) == ["Customer"] && problems.map(\.property) == ["avatar"])
        #expect(problems.first?.reason.contains("value transformer '\(old)' → '\(new)'") == true)
        var options = StoreOptions()
        options.migration = .inferred
        #expect(throws: StrataError.self) { _ = try ObjectStore(at: path, model: v2, options: options) }
        #expect(try DirectorySnapshot(path) == before)
    }
}
