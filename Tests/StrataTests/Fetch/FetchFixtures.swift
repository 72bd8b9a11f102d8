import Foundation
import StrataLog
import Testing
import StrataTestSupport
@testable import Strata

/// The model, people and store kinds the fetch tests share.
///
/// Foundation declares a `Predicate` too; these files write `Strata.Predicate`.
enum FetchFixtures {
    static let hired = Date(timeIntervalSince1970: 1_577_836_800) // 2020-01-01T00:00:00Z

    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Department") {
                Attribute("name", .string, indexed: true)
                Attribute("budget", .decimal, optional: true)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true)
            }
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("age", .int64, indexed: true)
                Attribute("salary", .double, default: .double(0))
                Attribute("city", .string, optional: true)
                Attribute("nickname", .string, optional: true)
                Attribute("email", .string, optional: true, unique: true)
                Attribute("active", .bool, default: .bool(true))
                Attribute("hired", .date, optional: true)
                Attribute("photo", .binary, optional: true, externalStorage: true)
                Attribute("mood", .string, optional: true, transient: true)
                Relationship("department", to: "Department", inverse: "employees")
            }
            Entity("Manager", parent: "Employee") {
                Attribute("reports", .int64, default: .int(0))
            }
        }
    }

    /// Where a test's store lives: both kinds run every store test.
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case inMemory, onDisk
        var testDescription: String { rawValue }

        /// The kinds a test runs on: both on the segment log; one on PostgreSQL, where
        /// both are a schema on the server.
        static var underTest: [Kind] { StoreUnderTest.isPostgres ? [.inMemory] : allCases }
    }

    /// A store of `kind`, removed when `body` returns.
    static func withStore<T>(_ kind: Kind, options: StoreOptions = StoreOptions(), _ body: (ObjectStore) throws -> T) throws -> T {
        switch kind {
        case .inMemory:
            let store = try StoreUnderTest.inMemory(model: try model(), options: options)
            defer { try? store.close() }
            return try body(store)
        case .onDisk:
            let dir = try TemporaryDirectory("fetch")
            defer { dir.remove() }
            let store = try StoreUnderTest.open(at: dir.appending("Fetch.strata"), model: try model(), options: options)
            defer { try? store.close() }
            return try body(store)
        }
    }

    /// R&D (Ann, Bob), Sales (Cid, Dana), Empty (nobody) and Eve, a manager without a
    /// department; saved in that order, so key order is Ann, Bob, Cid, Dana, Eve.
    static func populate(_ store: ObjectStore) throws {
        let context = store.newContext()
        func department(_ name: String, _ budget: Decimal) throws -> ManagedObject {
            let d = try context.insert("Department")
            try d.setValue(name, forKey: "name")
            try d.setValue(.decimal(budget), forKey: "budget")
            return d
        }
        let rd = try department("R&D", 1_000_000)
        let sales = try department("Sales", 250_000)
        _ = try department("Empty", 0)
        func employee(_ name: String, entity: String = "Employee", age: Int, salary: Double, city: String, nickname: String? = nil,
                      active: Bool = true, hired: Date? = nil, in department: ManagedObject?) throws {
            let e = try context.insert(entity)
            try e.setValue(name, forKey: "name")
            try e.setValue(age, forKey: "age")
            try e.setValue(salary, forKey: "salary")
            try e.setValue(city, forKey: "city")
            try e.setValue(nickname, forKey: "nickname")
            try e.setValue(active, forKey: "active")
            try e.setValue(hired, forKey: "hired")
            try e.setValue("\(name.split(separator: " ")[0].lowercased())@example.com", forKey: "email")
            try e.setObject(department, forKey: "department")
        }
        try employee("Ann Lee", age: 30, salary: 1500.5, city: "Zürich", hired: hired, in: rd)
        try employee("Bob Stone", age: 45, salary: 900, city: "Berlin", nickname: "Bobby", active: false, hired: hired.addingTimeInterval(86_400 * 400), in: rd)
        try employee("Cid Vega", age: 22, salary: 3000, city: "Zurich", in: sales)
        try employee("Dana Kim", age: 30, salary: 2500, city: "Paris", nickname: "D", hired: hired.addingTimeInterval(-86_400), in: sales)
        try employee("Eve Moss", entity: "Manager", age: 51, salary: 5000, city: "Berlin", in: nil)
        try context.save()
    }

    /// The first names of objects, in the order given.
    static func firstNames(_ objects: [ManagedObject]) throws -> [String] {
        try objects.map { String((try $0.string("name") ?? "").split(separator: " ").first ?? "") }
    }
}
