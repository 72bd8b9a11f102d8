import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog

/// Realm's `enumerateObjects(ofType:) { old, new in … }` inside a
/// custom stage — old and new objects walked together, in batches, with memory
/// bounded by the batch.
@Suite struct PairedEnumerationTests {
    static func people() throws -> (v1: ObjectModel, v2: ObjectModel) {
        let v1 = try ObjectModel(version: "people-1") {
            Entity("Person") {
                Attribute("firstName", .string)
                Attribute("lastName", .string)
                Attribute("address", .string)
            }
        }
        let v2 = try ObjectModel(version: "people-2") {
            Entity("Person") {
                Attribute("fullName", .string, default: .string(""))
                Attribute("street", .string, default: .string(""))
                Attribute("city", .string, default: .string(""))
            }
        }
        return (v1, v2)
    }

    static let count = 100
    static func person(_ i: Int) -> (first: String, last: String, street: String, city: String) {
        ("First\(i)", "Last\(i)", "\(i) Main Street", ["Paris", "Oslo", "Lima"][i % 3])
    }

    static func seedPeople(_ path: String, _ v1: ObjectModel) throws {
        try InferredStore.create(at: path, model: v1) { context in
            for i in 0..<count {
                let p = person(i)
                let object = try context.insert("Person")
                try object.setValue(p.first, forKey: "firstName")
                try object.setValue(p.last, forKey: "lastName")
                try object.setValue("\(p.street), \(p.city)", forKey: "address")
            }
        }
    }

    final class Weak { weak var object: ManagedObject?; init(_ object: ManagedObject) { self.object = object } }

    @Test func aStageMergesAndSplitsFieldsWithoutPairingObjectsByHand() throws {
        let dir = try TemporaryDirectory("paired-people")
        defer { dir.remove() }
        let (v1, v2) = try Self.people()
        try Self.seedPeople(dir.path, v1)
        /// What the hook saw, checked after the migration.
        final class Seen: @unchecked Sendable {
            var pairs = 0, withoutNew = 0, largestBatch = 0
            var firstBatch: [Weak] = []
            var releasedByBatch3: Bool?
        }
        let seen = Seen()
        let batch = 8
        let plan = MigrationPlan(models: [v1, v2], stages: [
            .custom(from: v1, to: v2, willMigrate: nil, didMigrate: { stage in
                try stage.enumerateObjects(ofType: "Person", batchSize: batch) { old, new in
                    seen.pairs += 1
                    if seen.pairs <= batch { seen.firstBatch += [Weak(old)] + (new.map { [Weak($0)] } ?? []) }
                    if seen.pairs == 2 * batch + 1 { seen.releasedByBatch3 = seen.firstBatch.allSatisfy { $0.object == nil } }
                    guard let new else { seen.withoutNew += 1; return }
                    // Merge two fields into one, split one into two.
                    try new.setValue("\(try old.string("firstName") ?? "") \(try old.string("lastName") ?? "")", forKey: "fullName")
                    let parts = (try old.string("address") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    try new.setValue(parts.first ?? "", forKey: "street")
                    try new.setValue(parts.count > 1 ? parts[1] : "", forKey: "city")
                }
                seen.largestBatch = stage.largestBatch
            }),
        ])
        try InferredStore.migrate(at: dir.path, to: v2, with: .plan(plan)) { context in
            let people = try context.keyedObjects("Person", by: "fullName")
            #expect(people.count == Self.count)
            for i in 0..<Self.count {
                let p = Self.person(i)
                let object = try #require(people["\(p.first) \(p.last)"], "person \(i)")
                #expect(try object.string("street") == p.street)
                #expect(try object.string("city") == p.city)
            }
        }
        #expect(seen.pairs == Self.count && seen.withoutNew == 0)
        // Memory is bounded structurally: a batch holds its old and new objects only,
        // and lets them go before the next.
        #expect(seen.largestBatch > 0 && seen.largestBatch <= 2 * batch, "\(seen.largestBatch)")
        #expect(seen.firstBatch.count == 2 * batch)
        #expect(seen.releasedByBatch3 == true, "the first batch's objects were released")
    }

    @Test func pairsFollowTheIDMapWhenObjectsGotNewKeys() throws {
        let dir = try TemporaryDirectory("paired-split")
        defer { dir.remove() }
        let (v1, v2) = try DestinationInstancesTests.pets()
        try DestinationInstancesTests.seedPets(dir.path, v1)
        let split = try DestinationInstancesTests.splitMapping(v1, v2)
        let plan = MigrationPlan(models: [v1, v2], stages: [
            .custom(from: v1, to: v2, mapping: split, willMigrate: nil, didMigrate: { stage in
                try stage.enumerateObjects(ofType: "Pet") { old, new in
                    // Each pet became a Dog or a Cat with its own new key.
                    guard let new else { throw StrataError(.objectNotFound, "\(old.objectID) became nothing") }
                    #expect(new.entity.name == (try old.string("species") == "dog" ? "Dog" : "Cat"))
                    try new.setValue("\(try old.string("name") ?? "") the \(try old.string("species") ?? "")", forKey: "name")
                }
            }),
        ])
        try InferredStore.migrate(at: dir.path, to: v2, with: .plan(plan)) { context in
            let dogs = try context.keyedObjects("Dog", by: "name"), cats = try context.keyedObjects("Cat", by: "name")
            for entry in DestinationInstancesTests.household {
                let pet = entry.species == "dog" ? dogs["\(entry.pet) the dog"] : cats["\(entry.pet) the cat"]
                #expect(pet != nil, "\(entry.pet)")
                #expect(try pet?.object("owner")?.string("name") == entry.owner, "\(entry.pet)")
            }
        }
    }

    @Test func aFailingWalkLeavesTheStoreAsItWas() throws {
        let dir = try TemporaryDirectory("paired-failing")
        defer { dir.remove() }
        let (v1, v2) = try Self.people()
        try Self.seedPeople(dir.path, v1)
        let before = try DirectorySnapshot(dir.path)
        for failure in ["unknown entity", "body throws"] {
            let plan = MigrationPlan(models: [v1, v2], stages: [
                .custom(from: v1, to: v2, willMigrate: nil, didMigrate: { stage in
                    try stage.enumerateObjects(ofType: failure == "unknown entity" ? "Nobody" : "Person") { old, _ in
                        if try old.string("firstName") == "First42" { throw StrataError(.invalidArgument, "refusing \(old.objectID)") }
                    }
                }),
            ])
            let error = #expect(throws: StrataError.self) {
                _ = try ObjectStore(at: dir.path, model: v2, options: InferredStore.options(.plan(plan)))
            }
            #expect(error?.code == .migrationHookFailed && error?.context["hook"] == "didMigrate", "\(String(describing: error))")
            #expect(error?.context["underlyingCode"] == (failure == "unknown entity" ? "unknownKeyPath" : "invalidArgument"))
            if failure == "body throws" { #expect(error?.message.contains("Person/43") == true, "\(String(describing: error?.message))") }
            #expect(try DirectorySnapshot(dir.path) == before, "\(failure)")
        }
    }
}
