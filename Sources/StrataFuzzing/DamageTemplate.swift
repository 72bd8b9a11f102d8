import Foundation
import Strata

/// The store the damage catalogue edits (FORMAT.md §3–§11): three entities with a
/// to-one/to-many pair, a many-to-many and an ordered to-many (both edge relations,
/// §11.2), an indexed string and a unique integer, external binaries in blob files,
/// sealed segments with their index files and an active segment holding commits,
/// deletes, a compaction, and two layouts: written at model v1, migrated in place to v2
/// (an attribute with a default, an optional one, §11.5) and written again, so records
/// of both layouts exist. Built once per process, in memory, small enough that a case
/// (open and read everything) takes milliseconds.
enum DamageTemplate {
    static let root = StoreTemplate.root

    static let v1: ObjectModel? = try? model(version: 1)
    static let v2: ObjectModel? = try? model(version: 2)

    static func model(version: Int) throws -> ObjectModel {
        try ObjectModel(version: "damage-\(version)") {
            Entity("Department") {
                Attribute("name", .string, indexed: true)
                Attribute("budget", .int64)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true)
                Relationship("projects", to: "Project", inverse: "department", toMany: true, ordered: true)
            }
            Entity("Employee") {
                Attribute("name", .string, indexed: true)
                Attribute("badge", .int64, unique: true)
                Attribute("salary", .double)
                Attribute("photo", .binary, optional: true, externalStorage: true)
                if version >= 2 { Attribute("level", .int64, default: .int(3)) }
                Relationship("department", to: "Department", inverse: "employees")
                Relationship("projects", to: "Project", inverse: "members", toMany: true)
            }
            Entity("Project") {
                Attribute("title", .string)
                if version >= 2 { Attribute("note", .string, optional: true) }
                Relationship("department", to: "Department", inverse: "projects")
                Relationship("members", to: "Employee", inverse: "projects", toMany: true)
            }
        }
    }

    /// The template's options: StoreTemplate's small segments and blob files, records
    /// and blobs compressed or not.
    static func options(_ fileSystem: any FileSystem, compressed: Bool) -> StoreOptions {
        var options = StoreTemplate.options(fileSystem, compressed: compressed)
        // A few photos a blob file, so that sealed blob files are there too.
        options.log.blobFileSizeLimit = 600
        return options
    }

    /// The files, path → durable bytes, for records and blobs uncompressed (false) and
    /// compressed (true), or why the template could not be built.
    static let built: [Bool: Result<[String: [UInt8]], any Error>] = {
        var result: [Bool: Result<[String: [UInt8]], any Error>] = [:]
        for compressed in [false, true] { result[compressed] = Result { try build(compressed: compressed) } }
        return result
    }()

    static var files: [Bool: [String: [UInt8]]] { built.compactMapValues { try? $0.get() } }

    static func build(compressed: Bool) throws -> [String: [UInt8]] {
        guard let v1, let v2 else { throw FuzzFinding("damage template: a model does not build") }
        let memory = InMemoryFileSystem()
        do {
            let store = try ObjectStore(at: root, model: v1, options: options(memory, compressed: compressed))
            try writeFirstVersion(store)
            try store.close()
        }
        var migrated = options(memory, compressed: compressed)
        migrated.migration = .inferred
        let store = try ObjectStore(at: root, model: v2, options: migrated)
        guard store.records.metadata["strata.layouts"] != nil else {
            throw FuzzFinding("damage template: the migration to v2 did not run in place (no layout table)")
        }
        try writeSecondVersion(store)
        // The last transactions in a segment of their own, left active: objects, edges,
        // a delete and an update, every kind of record the active segment can hold.
        guard let log = store.records as? LogStore else { throw FuzzFinding("damage template: the records are not a LogStore") }
        try log.sealActiveSegment()
        try writeActiveTail(store)
        try store.close()
        guard !activeSegmentIsEmpty(memory) else { throw FuzzFinding("damage template: the active segment holds no commit") }
        var files: [String: [UInt8]] = [:]
        for directory in ["", "/segments", "/index", "/blobs"] {
            for name in (try? memory.contentsOfDirectory(root + directory)) ?? [] {
                let path = root + directory + "/" + name
                if !memory.isDirectory(path), name != "LOCK", let bytes = memory.durableBytes(of: path) { files[path] = bytes }
            }
        }
        return files
    }

    /// What the active segment holds: a new employee with a photo, a department and
    /// two projects, a membership removed, an employee deleted, an employee of the first
    /// layout updated.
    static func writeActiveTail(_ store: ObjectStore) throws {
        let context = store.newContext()
        let departments = try context.fetch(FetchRequest(entityName: "Department", sortKeys: [SortKey("name")]))
        let projects = try context.fetch(FetchRequest(entityName: "Project", sortKeys: [SortKey("title")]))
        let employees = try context.fetch(FetchRequest(entityName: "Employee", sortKeys: [SortKey("badge")]))
        guard departments.count == 3, projects.count == 5, employees.count >= 20 else {
            throw FuzzFinding("damage template: objects missing before the active segment's writes")
        }
        let employee = try context.insert("Employee")
        try employee.setValue("E40 active", forKey: "name")
        try employee.setValue(.int(140), forKey: "badge")
        try employee.setValue(1234.5, forKey: "salary")
        try employee.setValue(.int(4), forKey: "level")
        try employee.setValue(photo(40, length: 100), forKey: "photo")
        try employee.setObject(departments[2], forKey: "department")
        try employee.add(projects[0], to: "projects")
        try employee.add(projects[4], to: "projects")
        try context.save()
        try employees[8].remove(projects[8 % 4], from: "projects")
        try context.delete(employees[9])
        try employees[10].setValue(.double(99.75), forKey: "salary")
        try context.save()
    }

    /// Whether the newest segment file holds no frame.
    static func activeSegmentIsEmpty(_ memory: InMemoryFileSystem) -> Bool {
        let names = ((try? memory.contentsOfDirectory(root + "/segments")) ?? []).filter { $0.hasSuffix(".seg") }
        guard let newest = names.max(by: { (Int($0.prefix { $0.isNumber }) ?? 0) < (Int($1.prefix { $0.isNumber }) ?? 0) }) else { return true }
        return (memory.durableBytes(of: root + "/segments/" + newest)?.count ?? 0) <= 48
    }

    /// A photo of `length` bytes: above the external storage threshold (64), so a blob.
    static func photo(_ seed: Int, length: Int) -> Data {
        Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* (seed + 3) &+ seed) })
    }

    /// Model v1: departments, projects, employees in several transactions (the
    /// segments roll at 2 KiB), memberships, deletes of an employee and of a
    /// membership, and a compaction.
    static func writeFirstVersion(_ store: ObjectStore) throws {
        let context = store.newContext()
        var departments: [ManagedObject] = []
        var projects: [ManagedObject] = []
        for d in 0..<3 {
            let department = try context.insert("Department")
            try department.setValue("Dept \(d)", forKey: "name")
            try department.setValue(.int(Int64(1000 * (d + 1))), forKey: "budget")
            departments.append(department)
        }
        for p in 0..<4 {
            let project = try context.insert("Project")
            try project.setValue("Project \(p)", forKey: "title")
            try departments[p % 3].add(project, to: "projects")
            projects.append(project)
        }
        try context.save()
        var employees: [ManagedObject] = []
        for round in 0..<4 {
            for i in 0..<5 {
                let n = round * 5 + i
                let employee = try context.insert("Employee")
                try employee.setValue("E\(n) " + String(repeating: "ab", count: n % 4), forKey: "name")
                try employee.setValue(.int(Int64(100 + n)), forKey: "badge")
                try employee.setValue(Double(n) * 250.5, forKey: "salary")
                if n % 3 == 0 { try employee.setValue(photo(n, length: 80 + 30 * (n % 4)), forKey: "photo") }
                try employee.setObject(departments[n % 3], forKey: "department")
                try employee.add(projects[n % 4], to: "projects")
                if n % 5 == 1 { try employee.add(projects[(n + 1) % 4], to: "projects") }
                employees.append(employee)
            }
            try context.save()
        }
        // Deletes: an employee (its edges go with it), a membership, then a compaction
        // that rewrites the segments with garbage.
        try context.delete(employees[7])
        try employees[1].remove(projects[1], from: "projects")
        try context.save()
        _ = try store.records.compact(force: true)
        // More v1 writes after the compaction: a moved employee and a reordered side.
        try employees[2].setObject(departments[0], forKey: "department")
        try employees[3].setValue(.double(-12.25), forKey: "salary")
        try departments[0].setObjects([projects[3], projects[0]], forKey: "projects")
        try context.save()
    }

    /// Model v2 (after the in-place migration): new employees with a level, a project
    /// with a note, an old employee updated (its record now of layout 2) and one
    /// deleted, the last transactions left in the active segment.
    static func writeSecondVersion(_ store: ObjectStore) throws {
        let context = store.newContext()
        let departments = try context.fetch(FetchRequest(entityName: "Department", sortKeys: [SortKey("name")]))
        let projects = try context.fetch(FetchRequest(entityName: "Project", sortKeys: [SortKey("title")]))
        let old = try context.fetch(FetchRequest(entityName: "Employee", sortKeys: [SortKey("badge")]))
        guard departments.count == 3, projects.count == 4, old.count >= 12 else {
            throw FuzzFinding("damage template: v1 objects missing after the migration")
        }
        for round in 0..<3 {
            for i in 0..<4 {
                let n = 20 + round * 4 + i
                let employee = try context.insert("Employee")
                try employee.setValue("E\(n) v2", forKey: "name")
                try employee.setValue(.int(Int64(100 + n)), forKey: "badge")
                try employee.setValue(Double(n) * 250.5, forKey: "salary")
                if i != 1 { try employee.setValue(.int(Int64(n % 5)), forKey: "level") }
                if n % 3 == 0 { try employee.setValue(photo(n, length: 90 + 20 * (n % 3)), forKey: "photo") }
                try employee.setObject(departments[n % 3], forKey: "department")
                try employee.add(projects[n % 4], to: "projects")
                try employee.add(projects[(n + 2) % 4], to: "projects")
            }
            try context.save()
        }
        let project = try context.insert("Project")
        try project.setValue("Project 4", forKey: "title")
        try project.setValue("added at v2", forKey: "note")
        try departments[1].add(project, to: "projects")
        try old[4].setValue(.int(9), forKey: "level")
        try old[4].add(project, to: "projects")
        try projects[2].setValue("renamed at v2", forKey: "note")
        try context.save()
        try context.delete(old[5])
        try old[6].setValue("E6 renamed", forKey: "name")
        try context.save()
    }
}
