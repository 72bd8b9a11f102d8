import Foundation
import Testing
import StrataTestSupport
import Strata
import StrataScenarios

/// Scenario 1 on the committed stores: every format's `employees-v1` (imported) and
/// `employees-lifecycle-v1` (after overwrites, deletes and a compaction) still opens with
/// the v1 model holding exactly its data file, and migrates to v2 by the photo-split
/// policy of `EmployeesPhotoSplitMigrationTests`, carrying every photo by reference.
@Suite struct EmployeesFixtureTests {
    static let keys = ["Department": "name", "Employee": "name"]
    static let stores = ["employees-v1", "employees-lifecycle-v1"]

    @Test(arguments: FixtureStore.formatFolders, Self.stores)
    func opensAtV1WithEveryEmployeeAndPhoto(folder: String, name: String) throws {
        let fixture = FixtureStore(folder: folder, name: name)
        let lines = try fixture.lines()
        let employees = lines.filter { $0.entity == "Employee" }
        let withPhoto = try employees.filter { try $0.data("photo") != nil }
        let v1 = try ObjectModel(contentsOf: FixturePaths.model("Employees-v1.json"))
        try fixture.withCopy { path in
            let store = try ObjectStore(at: path, model: v1)
            defer { try? store.close() }
            let context = store.newContext()

            store.resetStatistics()
            let listed = try context.fetch(FetchRequest(entityName: "Employee", sortKeys: [.ascending("name")]))
            #expect(try listed.map { try $0.string("name") ?? "" }.sorted() == employees.compactMap { $0.string("name") }.sorted())
            #expect(store.statistics.blobBytesRead == 0, "the list screen reads no photo")

            store.resetStatistics()
            for employee in listed { _ = try employee.data("photo") }
            let fromBlobArea = store.statistics.blobsRead
            #expect(fromBlobArea > 0 && fromBlobArea < withPhoto.count,
                    "some photos live in the blob area and some inline (\(fromBlobArea) of \(withPhoto.count) from blobs)")

            try FixtureContents(lines: lines, keys: Self.keys).expectMatches(store.newContext(), model: v1)
            #expect(try store.verify().isSound)
        }
    }

    /// On every format's stores, a lightweight change runs in place (the store's
    /// version-1 records become its first layout), then the store is written,
    /// compacted and reopened, and still holds exactly its data file.
    @Test(arguments: FixtureStore.formatFolders, Self.stores)
    func migratesInPlaceAndCompacts(folder: String, name: String) throws {
        let fixture = FixtureStore(folder: folder, name: name)
        let lines = try fixture.lines()
        let v1 = try ObjectModel(contentsOf: FixturePaths.model("Employees-v1.json"))
        var entities = v1.entities
        let index = try #require(entities.firstIndex { $0.name == "Employee" })
        entities[index].declaredProperties.append(.attribute(AttributeDescription(name: "nickname", type: .string, isOptional: true)))
        let v2 = try ObjectModel(version: "1-nickname", entities: entities)
        try fixture.withCopy { path in
            var options = StoreOptions()
            options.migration = .plan(MigrationPlan(models: [v1, v2], stages: [.lightweight(from: v1, to: v2)]))
            let passes = ProgressLog()
            options.migrationProgress = { passes.append($0) }
            do {
                let store = try ObjectStore(at: path, model: v2, options: options)
                #expect(passes.passes == [.inPlace, .swap], "\(fixture)")
                try FixtureContents(lines: lines, keys: Self.keys).expectMatches(store.newContext(), model: v2)
                let context = store.newContext()
                let someone = try #require(try context.fetch(FetchRequest(entityName: "Employee")).first)
                // Written twice, so the store holds records of both layouts (the data file
                // has no nickname: it ends null).
                try someone.setValue("Nick", forKey: "nickname")
                try context.save()
                #expect(try store.newContext().count(for: FetchRequest(entityName: "Employee", predicate: .key("nickname") == .constant(.string("Nick")))) == 1)
                try someone.setValue(Value.null, forKey: "nickname")
                try context.save()
                try store.close()
            }
            do {
                let store = try ObjectStore(at: path, model: v2)
                let log = try #require(store.records as? LogStore)
                try log.sealActiveSegment()
                try log.compact(force: true)
                try store.close()
            }
            let store = try ObjectStore(at: path, model: v2)
            defer { try? store.close() }
            try FixtureContents(lines: lines, keys: Self.keys).expectMatches(store.newContext(), model: v2)
            #expect(try store.verify().isSound)
        }
    }

    @Test(arguments: FixtureStore.formatFolders, Self.stores)
    func migratesToV2MovingEveryPhotoByReference(folder: String, name: String) throws {
        let fixture = FixtureStore(folder: folder, name: name)
        let lines = try fixture.lines()
        let employees = lines.filter { $0.entity == "Employee" }
        // Department name by @ref, as the employees' lines link them.
        var departments: [String: String] = [:]
        for line in lines where line.entity == "Department" {
            if let ref = line.ref, let name = line.string("name") { departments[ref] = name }
        }
        let v1 = try ObjectModel(contentsOf: FixturePaths.model("Employees-v1.json"))
        let v2 = try ObjectModel(contentsOf: FixturePaths.model("Employees-v2.json"))
        let salary = try #require(v1.entity(named: "Employee")?.attributesByName["salary"])
        try fixture.withCopy { path in
            let blobBytesBefore = try EmployeesPhotoSplitMigrationTests.blobBytesOnDisk(path)
            var options = StoreOptions()
            options.migration = .mappings([try EmployeesScenario.photoSplit(from: v1, to: v2)], models: [v2])
            options.migrationBatchSize = 5
            do {
                let store = try ObjectStore(at: path, model: v2, options: options)
                defer { try? store.close() }
                #expect(try EmployeesPhotoSplitMigrationTests.blobBytesOnDisk(path) == blobBytesBefore, "the migration wrote no blob bytes")
                #expect(try store.verify().isSound)
            }

            // Reopened without a migration: the swap is durable and the store is at v2.
            let store = try ObjectStore(at: path, model: v2)
            defer { try? store.close() }
            let context = store.newContext()
            store.resetStatistics()
            let all = try context.fetch(FetchRequest(entityName: "Employee"))
            let byName = try Dictionary(all.map { (try $0.string("name") ?? "", $0) }, uniquingKeysWith: { first, _ in first })
            #expect(store.statistics.blobBytesRead == 0, "the list screen reads no photo")
            #expect(all.count == employees.count)

            var photos = 0
            for line in employees {
                let name = try #require(line.string("name"))
                let employee = try #require(byName[name], "line \(line.number): \(name) is gone")
                #expect(try employee.value(forKey: "salary") == line.value(of: salary), "line \(line.number): \(name)'s salary")
                #expect(try employee.object("department")?.string("name") == line.targets("department").first.flatMap { departments[$0] },
                        "line \(line.number): \(name)'s department")
                if let photo = try line.data("photo") {
                    photos += 1
                    let profile = try #require(try employee.object("profile"), "line \(line.number): \(name) has no profile")
                    #expect(try profile.data("photo") == photo, "line \(line.number): \(name)'s photo bytes")
                    #expect(try profile.object("employee") == employee)
                } else {
                    #expect(try employee.object("profile") == nil, "line \(line.number): \(name) had no photo")
                }
            }
            #expect(try context.count(for: FetchRequest(entityName: "Photo")) == photos)
            let departmentObjects = try context.fetch(FetchRequest(entityName: "Department"))
            #expect(departmentObjects.count == departments.count)
            for department in departmentObjects {
                let name = try department.string("name")
                let members = employees.filter { line in line.targets("department").contains { departments[$0] == name } }
                #expect(try department.count("employees") == members.count, "\(name ?? "?")'s employees")
            }
            #expect(try store.verify().isSound)
        }
    }
}
