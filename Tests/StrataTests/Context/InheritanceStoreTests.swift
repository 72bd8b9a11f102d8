import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Entity inheritance through the store: fetches on a parent return sub-entity
/// instances (unless asked not to); a relationship to a parent takes any sub-entity.
@Suite struct InheritanceStoreTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Garage") {
                Attribute("name", .string)
                Relationship("vehicles", to: "Vehicle", inverse: "garage", toMany: true)
                Relationship("favourite", to: "Car", inverse: "fan")
            }
            Entity("Vehicle") {
                Attribute("name", .string)
                Attribute("wheels", .int16, default: .int(4), indexed: true)
                Relationship("garage", to: "Garage", inverse: "vehicles")
            }
            Entity("Car", parent: "Vehicle") {
                Attribute("doors", .int16, default: .int(5))
                Relationship("fan", to: "Garage", inverse: "favourite")
            }
            Entity("Truck", parent: "Vehicle") {
                Attribute("load", .double, default: .double(0))
            }
        }
    }

    /// A garage holding a plain vehicle, a car and a truck, on disk.
    static func populate(_ store: ObjectStore) throws -> ManagedObject {
        let context = store.newContext()
        let garage = try context.insert("Garage")
        try garage.setValue("Central", forKey: "name")
        for (entity, name, wheels) in [("Vehicle", "cart", 2), ("Car", "mini", 4), ("Truck", "big", 6)] {
            let vehicle = try context.insert(entity)
            try vehicle.setValue(name, forKey: "name")
            try vehicle.setValue(wheels, forKey: "wheels")
            try garage.add(vehicle, to: "vehicles")
        }
        try context.save()
        return garage
    }

    @Test func aFetchOnTheParentReturnsSubEntityInstances() throws {
        let dir = try TemporaryDirectory("inheritance")
        defer { dir.remove() }
        do {
            let store = try StoreUnderTest.open(at: dir.path, model: try Self.model())
            _ = try Self.populate(store)
            try store.close()
        }
        let store = try StoreUnderTest.open(at: dir.path, model: try Self.model())
        defer { try? store.close() }
        let context = store.newContext()
        let all = try context.fetch(FetchRequest(entityName: "Vehicle"))
        #expect(Set(all.map(\.entity.name)) == ["Vehicle", "Car", "Truck"])
        let car = try #require(all.first { $0.entity.name == "Car" })
        #expect(try car.int("doors") == 5 && car.string("name") == "mini") // inherited and own

        var onlyVehicles = FetchRequest(entityName: "Vehicle")
        onlyVehicles.includesSubentities = false
        #expect(try context.fetch(onlyVehicles).map(\.entity.name) == ["Vehicle"])
        #expect(try context.count(for: onlyVehicles) == 1)

        // A predicate on an inherited, indexed attribute covers every sub-entity.
        let wide = FetchRequest(entityName: "Vehicle", predicate: try Predicate(format: "wheels >= 4"))
        #expect(Set(try context.fetch(wide).map { try $0.string("name") }) == ["mini", "big"])
        let trucks = FetchRequest(entityName: "Truck", predicate: try Predicate(format: "wheels >= 4"))
        #expect(try context.fetch(trucks).map { try $0.string("name") } == ["big"])
    }

    @Test func aRelationshipToTheParentTakesAnySubEntity() throws {
        let store = try StoreUnderTest.inMemory(model: try Self.model())
        let garage = try Self.populate(store)
        let context = store.newContext()
        let same = try context.object(with: garage.objectID)
        let vehicles = try same.objects("vehicles")
        #expect(Set(vehicles.map(\.entity.name)) == ["Vehicle", "Car", "Truck"])
        let truck = try #require(vehicles.first { $0.entity.name == "Truck" })
        #expect(try truck.object("garage") == same)
        #expect(try truck.double("load") == 0)

        // A to-one to a sub-entity refuses a sibling sub-entity, naming the relationship.
        let error = #expect(throws: StrataError.self) { try same.setObject(truck, forKey: "favourite") }
        #expect(error?.code == .typeMismatch)
        #expect(error?.context["keyPath"] == "favourite")
        let car = try #require(vehicles.first { $0.entity.name == "Car" })
        try same.setObject(car, forKey: "favourite")
        #expect(try car.object("fan") == same)

        // Deleting a sub-entity instance nullifies the parent-typed inverse.
        try context.delete(truck)
        #expect(try same.count("vehicles") == 2)
        try context.save()
        let fresh = store.newContext()
        #expect(try fresh.object(with: garage.objectID).count("vehicles") == 2)
    }
}
