import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog

/// A store's recorded model, read without opening it, and whether a model opens it as
/// it is or needs a migration.
@Suite struct StoreMetadataTests {
    static func models() throws -> (v1: ObjectModel, v2: ObjectModel) {
        let v1 = try ObjectModel(version: "staff-1") {
            Entity("Department") {
                Attribute("name", .string)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true)
            }
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .double, default: .double(0))
                Attribute("photo", .binary, optional: true, externalStorage: true)
                Attribute("draft", .string, optional: true, transient: true)
                Relationship("department", to: "Department", inverse: "employees", optional: true)
            }
        }
        let v2 = try ObjectModel(version: "staff-2") {
            Entity("Department") {
                Attribute("name", .string)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true)
            }
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .double, default: .double(0))
                Attribute("photo", .binary, optional: true, externalStorage: true)
                Attribute("email", .string, optional: true)
                Relationship("department", to: "Department", inverse: "employees", optional: true)
            }
        }
        return (v1, v2)
    }

    static func seed(_ path: String, _ model: ObjectModel) throws {
        try InferredStore.create(at: path, model: model) { context in
            let sales = try context.insert("Department")
            try sales.setValue("Sales", forKey: "name")
            for i in 0..<5 {
                let employee = try context.insert("Employee")
                try employee.setValue("E\(i)", forKey: "name")
                try employee.setValue(Data(repeating: UInt8(i), count: 20 << 10), forKey: "photo")
                try employee.setObject(sales, forKey: "department")
            }
        }
    }

    @Test func theRecordedModelReadsWithoutOpeningOrWriting() throws {
        let dir = try TemporaryDirectory("metadata-read")
        defer { dir.remove() }
        let (v1, v2) = try Self.models()
        try Self.seed(dir.path, v1)
        let before = try DirectorySnapshot(dir.path)

        let metadata = try ObjectStore.metadata(at: dir.path)
        #expect(metadata.versionIdentifier == "staff-1")
        #expect(metadata.versionHash == v1.versionHash)
        #expect(metadata.model == v1)
        #expect(metadata.entities.map(\.name) == ["Department", "Employee"])
        #expect(metadata.entity(named: "Employee")?.persistentAttributeCount == 3, "the transient one is not stored")
        #expect(metadata.entity(named: "Employee")?.relationshipCount == 1)
        #expect(metadata.entity(named: "Department")?.persistentAttributeCount == 1)
        #expect(metadata.entity(named: "Employee")?.versionHash == v1.entityVersionHashes["Employee"])
        #expect(metadata.formatVersion == Format.version)

        #expect(metadata.isCompatible(with: v1) && v1.isCompatible(withStoreMetadata: metadata))
        #expect(!metadata.needsMigration(to: v1))
        #expect(!v2.isCompatible(withStoreMetadata: metadata))
        #expect(metadata.needsMigration(to: v2))
        // Nothing was written: no recovery, no lock file contents, no index files.
        #expect(try DirectorySnapshot(dir.path) == before)

        // What it says agrees with what opening does.
        expectCode(.incompatibleModel) { _ = try ObjectStore(at: dir.path, model: v2) }
        let store = try ObjectStore(at: dir.path, model: v1)
        #expect(store.identifier == metadata.storeIdentifier)
        try store.close()
    }

    @Test func itReadsWhileAnotherOpenHoldsTheLockAndFollowsAMigration() throws {
        let dir = try TemporaryDirectory("metadata-locked")
        defer { dir.remove() }
        let (v1, v2) = try Self.models()
        try Self.seed(dir.path, v1)
        let store = try ObjectStore(at: dir.path, model: v1)
        // The store is open for writing here; a second open would fail with storeLocked.
        expectCode(.storeLocked) { _ = try ObjectStore(at: dir.path, model: v1) }
        #expect(try ObjectStore.metadata(at: dir.path).versionIdentifier == "staff-1")
        try store.close()

        try InferredStore.migrate(at: dir.path, to: v2) { context in
            let employees = try context.fetch(FetchRequest(entityName: "Employee"))
            #expect(employees.count == 5)
        }
        let after = try ObjectStore.metadata(at: dir.path)
        #expect(after.versionIdentifier == "staff-2" && after.versionHash == v2.versionHash)
        #expect(after.entity(named: "Employee")?.persistentAttributeCount == 4)
        #expect(v2.isCompatible(withStoreMetadata: after) && after.needsMigration(to: v1))
        // The recorded model is where a plan's path starts, naming versions.
        let plan = MigrationPlan(models: [v1, v2], stages: [.lightweight(from: v1, to: v2)])
        #expect(try plan.path(from: try #require(after.model)).isEmpty)
    }

    @Test func noStoreAndADamagedManifestAreClearErrors() throws {
        let dir = try TemporaryDirectory("metadata-missing")
        defer { dir.remove() }
        expectCode(.notFound) { _ = try ObjectStore.metadata(at: dir.appending("none")) }
        #expect(!FileManager.default.fileExists(atPath: dir.appending("none")), "reading metadata creates nothing")
        let (v1, _) = try Self.models()
        try Self.seed(dir.path, v1)
        var bytes = try FileBytes.read(dir.appending("MANIFEST"))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: dir.appending("MANIFEST")))
        expectCode(.corrupt) { _ = try ObjectStore.metadata(at: dir.path) }
    }
}
