import Foundation
import StrataTestSupport
@testable import Strata

/// The object-layer operations the fault sweep fails one I/O at a time.
extension ObjectFaultSweepTests {
    static let scenarios: [Scenario] = [contextSave, batchInsert, compactionWithBlobCollection, twoStageMigration]

    /// - Parameter rules: employees' names unique and their salaries indexed.
    static func company(version: String = "1", extra: Bool = false, level: Bool = false, rules: Bool = false) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Department") {
                Attribute("name", .string)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: .cascade)
            }
            Entity("Employee") {
                Attribute("name", .string, unique: rules)
                Attribute("salary", .double, default: .double(0), indexed: rules)
                Attribute("photo", .binary, optional: true, externalStorage: true)
                if extra { Attribute("title", .string, optional: true) }
                if level { Attribute("level", .int64, default: .int(3)) }
                Relationship("department", to: "Department", inverse: "employees")
            }
        }
    }

    /// 300 to 1,300 bytes: above the 256-byte external-storage threshold, so a blob.
    static func photo(_ seed: Int) -> Data {
        Data((0..<(300 + seed * 97 % 1000)).map { UInt8(truncatingIfNeeded: $0 &* (seed + 7)) })
    }

    /// Two departments, six employees, half with photos.
    static func populate(_ store: ObjectStore) throws {
        let context = store.newContext()
        for d in 0..<2 {
            let department = try context.insert("Department")
            try department.setValue("D\(d)", forKey: "name")
            for e in 0..<3 {
                let employee = try context.insert("Employee")
                try employee.setValue("E\(d)\(e)", forKey: "name")
                try employee.setValue(Double(d * 10 + e), forKey: "salary")
                if e != 1 { try employee.setValue(photo(d * 3 + e), forKey: "photo") }
                try employee.setObject(department, forKey: "department")
            }
        }
        try context.save()
    }

    /// Inserts, updates and deletes in one save: new objects with photos and
    /// relationships, a photo replaced, an employee moved, a department deleted (its
    /// employees cascade).
    static let contextSave = Scenario(description: "context save", models: { (try company(), try company()) }, setup: populate) { _, store in
        let context = store.newContext()
        let departments = try context.fetch(FetchRequest(entityName: "Department", sortKeys: [SortKey("name")]))
        let employees = try context.fetch(FetchRequest(entityName: "Employee", sortKeys: [SortKey("name")]))
        let added = try context.insert("Department")
        try added.setValue("D9", forKey: "name")
        for e in 0..<4 {
            let employee = try context.insert("Employee")
            try employee.setValue("N\(e)", forKey: "name")
            try employee.setValue(photo(20 + e), forKey: "photo")
            try employee.setObject(added, forKey: "department")
        }
        try employees[0].setValue(photo(40), forKey: "photo")
        try employees[0].setObject(added, forKey: "department")
        try employees[1].setValue(77.5, forKey: "salary")
        try context.delete(departments[1])
        try context.save()
        return nil
    }

    /// Forty employees in one batch, with photos and a department each.
    static let batchInsert = Scenario(description: "batch insert", models: { (try company(), try company()) }, setup: populate) { _, store in
        let context = store.newContext()
        let departments = try context.fetch(FetchRequest(entityName: "Department", sortKeys: [SortKey("name")]))
        let objects: [[String: Value]] = (0..<40).map { i in
            ["name": .string("B\(i)"), "salary": .double(Double(i)), "photo": i % 3 == 0 ? .binary(photo(50 + i)) : .null]
        }
        let relationships: [[String: ObjectID]] = (0..<40).map { ["department": departments[$0 % 2].objectID] }
        try store.batchInsert(entityName: "Employee", objects: objects, relationships: relationships)
        return nil
    }

    /// Photos replaced three times over, most employees deleted: compaction rewrites
    /// the segments and collects the blob files nothing points at any more.
    static let compactionWithBlobCollection = Scenario(description: "compaction with blob collection", models: { (try company(), try company()) }, setup: { store in
        try populate(store)
        for round in 0..<3 {
            let context = store.newContext()
            for (i, employee) in try context.fetch(FetchRequest(entityName: "Employee")).enumerated() {
                try employee.setValue(photo(100 + round * 10 + i), forKey: "photo")
            }
            try context.save()
        }
        let context = store.newContext()
        for employee in try context.fetch(FetchRequest(entityName: "Employee", sortKeys: [SortKey("name")])).prefix(4) {
            try context.delete(employee)
        }
        try context.save()
    }) { _, store in
        try store.records.compact(force: true)
        return nil
    }

    /// v1 → v2 (adds title) → v3 (adds level): two stages, each into a staging store,
    /// the last swapped in; the photos travel as blobs.
    static let twoStageMigration = Scenario(description: "two-stage migration", models: { (try company(), try company(version: "3", extra: true, level: true)) }, setup: populate) { fs, store in
        let v1 = try company(), v2 = try company(version: "2", extra: true), v3 = try company(version: "3", extra: true, level: true)
        try store.close()
        var options = options(fs)
        options.migration = .plan(MigrationPlan(models: [v1, v2, v3], stages: [.lightweight(from: v1, to: v2), .lightweight(from: v2, to: v3)]))
        return try ObjectStore(at: root, model: v3, options: options)
    }
}
