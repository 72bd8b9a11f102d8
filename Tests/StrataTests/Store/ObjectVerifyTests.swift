import Foundation
import Testing
import StrataLog
@testable import Strata

/// `ObjectStore.verify()` holds the records to the model as well as the files to their
/// checksums, and `paranoidChecks` refuses at open a store it finds unsound: damage
/// whose checksums were recomputed, which the default open lets through.
@Suite struct ObjectVerifyTests {
    static let model: ObjectModel? = try? ObjectModel(version: "object-verify") {
        Entity("Department") {
            Attribute("name", .string, indexed: true)
            Relationship("employees", to: "Employee", inverse: "department", toMany: true)
            Relationship("projects", to: "Project", inverse: "departments", toMany: true)
        }
        Entity("Employee") {
            Attribute("name", .string)
            Attribute("photo", .binary, optional: true, externalStorage: true)
            Relationship("department", to: "Department", inverse: "employees")
        }
        Entity("Project") {
            Attribute("title", .string)
            Relationship("departments", to: "Department", inverse: "projects", toMany: true)
        }
    }

    static func options(_ memory: InMemoryFileSystem, paranoid: Bool = false) -> StoreOptions {
        var options = StoreOptions()
        options.fileSystem = memory
        options.logger = .quiet
        options.externalStorageThreshold = 64
        options.log.segmentSizeLimit = 2048
        options.paranoidChecks = paranoid
        return options
    }

    /// Two departments, six employees (photos in the blob area), two projects joined
    /// to both departments (edges), several segments, a delete, a compaction.
    static func store() throws -> (InMemoryFileSystem, ObjectModel, [ObjectID]) {
        let model = try #require(Self.model)
        let memory = InMemoryFileSystem()
        let store = try ObjectStore(at: "/store", model: model, options: options(memory))
        let context = store.newContext()
        var employees: [ObjectID] = []
        var departments: [ManagedObject] = []
        for d in 0..<2 {
            let department = try context.insert("Department")
            try department.setValue("D\(d)", forKey: "name")
            departments.append(department)
            for e in 0..<3 {
                let employee = try context.insert("Employee")
                try employee.setValue("E\(d)\(e)", forKey: "name")
                try employee.setValue(Data(repeating: UInt8(e), count: 100), forKey: "photo")
                try employee.setObject(department, forKey: "department")
                try context.save()
                employees.append(employee.objectID)
            }
        }
        for p in 0..<2 {
            let project = try context.insert("Project")
            try project.setValue("P\(p)", forKey: "title")
            for department in departments { try department.add(project, to: "projects") }
            try context.save()
        }
        try context.delete(try context.object(with: employees[5]))
        try context.save()
        try store.records.compact(force: true)
        try store.close()
        return (memory, model, Array(employees.prefix(5)))
    }

    @Test func aSoundStoreWithEdgesBlobsAndACompactionVerifiesAndOpensParanoid() throws {
        let (memory, model, employees) = try Self.store()
        let store = try ObjectStore(at: "/store", model: model, options: Self.options(memory, paranoid: true))
        defer { try? store.close() }
        let report = try store.verify()
        #expect(report.isSound, "\(report)")
        #expect(report.recordsChecked >= 5 + 2 + 2 + 4)
        let context = store.newContext()
        #expect(try context.object(with: employees[0]).value(forKey: "name") == .string("E00"))
    }

    @Test func aReferenceToAnotherEntitysKeyIsReported() throws {
        let (memory, model, employees) = try Self.store()
        let store = try ObjectStore(at: "/store", model: model, options: Self.options(memory))
        let context = store.newContext()
        let employee = try context.object(with: employees[0])
        // The employee's department field pointed at another employee.
        let stored = try #require(try store.records.get(employee.recordKey))
        var object = try ObjectCodec.decode(stored)
        let number = try #require(store.schema.shapes["Employee"]?.layout.fieldNumbers["department"])
        object.fields[number] = .reference(try context.object(with: employees[1]).recordKey)
        let layout = try #require(store.schema.shapes["Employee"]?.layout)
        let encoded = try ObjectCodec.encode(object.fields, layout: layout) { _ in [] }
        var batch = WriteBatch()
        batch.put(employee.recordKey, value: encoded.value, blobs: stored.blobs, terms: encoded.terms)
        try store.records.commit(batch)
        let report = try store.verify()
        #expect(report.problems.contains { $0.context["relationship"] == "department" }, "\(report)")
        try store.close()
        let error = #expect(throws: StrataError.self) { _ = try ObjectStore(at: "/store", model: model, options: Self.options(memory, paranoid: true)) }
        #expect(error?.code == .corrupt)
    }

    /// The stored schema's tag for Employee changed to one no key has: open refuses
    /// metadata that does not match its digest. Without the digest too (as a store
    /// written before it), the default open fetches no employee; verify names the keys
    /// no entity claims, and a paranoid open refuses the store.
    @Test func keysNoEntityClaimsAreReportedAndRefusedParanoid() throws {
        let (memory, model, _) = try Self.store()
        func editSchema(removingDigest: Bool) throws {
            let store = try LogStore.open(at: "/store", options: Self.options(memory).log, fileSystem: memory, logger: .quiet)
            var metadata = store.metadata
            let schema = try #require(metadata["strata.schema"])
            var tags = try JSONDecoder().decode([String: UInt16].self, from: Data(schema))
            tags["Employee"] = 40
            metadata["strata.schema"] = Array(try JSONEncoder().encode(tags))
            if removingDigest { metadata["strata.digest"] = nil }
            try store.setMetadata(metadata)
            try store.close()
        }
        try editSchema(removingDigest: false)
        let refused = #expect(throws: StrataError.self) { _ = try ObjectStore(at: "/store", model: model, options: Self.options(memory)) }
        #expect(refused?.code == .corrupt && refused?.context["key"] == "strata.digest", "\(String(describing: refused))")
        // Edited again, the digest removed.
        try editSchema(removingDigest: true)
        let store = try ObjectStore(at: "/store", model: model, options: Self.options(memory))
        let report = try store.verify()
        #expect(report.problems.contains { $0.context["tag"] != nil }, "\(report)")
        try store.close()
        let error = #expect(throws: StrataError.self) { _ = try ObjectStore(at: "/store", model: model, options: Self.options(memory, paranoid: true)) }
        #expect(error?.code == .corrupt)
    }

    /// An index entry turned into a tombstone with its block checksum recomputed: the
    /// default open reads the employee as deleted (verify reports the index file), a
    /// paranoid open refuses the store.
    @Test func anIndexEntryEditedWithItsChecksumIsRefusedParanoid() throws {
        let (memory, model, employees) = try Self.store()
        let key = try {
            let store = try ObjectStore(at: "/store", model: model, options: Self.options(memory))
            defer { try? store.close() }
            return try store.newContext().object(with: employees[0]).recordKey
        }()
        var edited = false
        for name in try memory.contentsOfDirectory("/store/index") where name.hasSuffix(".idx") {
            let path = "/store/index/" + name
            var bytes = try #require(memory.bytes(of: path))
            let count = Int(bytes[0]) | Int(bytes[1]) << 8
            var offset = 4
            for _ in 0..<count {
                let entryKey = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
                let blobs = Int(bytes[offset + 33]) | Int(bytes[offset + 34]) << 8
                if entryKey == key.rawValue && bytes[offset + 16] == 1 {
                    bytes[offset + 16] = 2
                    edited = true
                }
                offset += 35 + 24 * blobs
            }
            guard edited else { continue }
            let crc = CRC32C.checksum(bytes[0..<offset])
            for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
            try memory.setBytes(bytes, of: path)
            break
        }
        try #require(edited)
        let store = try ObjectStore(at: "/store", model: model, options: Self.options(memory))
        #expect(try !store.verify().isSound)
        try store.close()
        let error = #expect(throws: StrataError.self) { _ = try ObjectStore(at: "/store", model: model, options: Self.options(memory, paranoid: true)) }
        #expect(error?.code == .corrupt)
    }
}
