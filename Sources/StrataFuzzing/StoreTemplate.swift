import Foundation
import Logging
import Strata

/// The small valid store the store target edits: two entities with a relationship,
/// external binaries in blob files, several sealed segments with their index files,
/// deletes, and a compaction — every kind of file a store holds. Built once per
/// process, in memory, and kept as the files' durable bytes.
enum StoreTemplate {
    static let root = "/store"

    static let model: ObjectModel? = try? ObjectModel(version: "fuzz-store") {
        Entity("Department") {
            Attribute("name", .string, indexed: true)
            Relationship("employees", to: "Employee", inverse: "department", toMany: true)
        }
        Entity("Employee") {
            Attribute("name", .string)
            Attribute("salary", .double)
            Attribute("serial", .int64, unique: true)
            Attribute("photo", .binary, optional: true, externalStorage: true)
            Relationship("department", to: "Department", inverse: "employees")
        }
    }

    static func options(_ fileSystem: any FileSystem, compressed: Bool) -> StoreOptions {
        var options = StoreOptions()
        options.fileSystem = fileSystem
        // STRATA_FUZZ_TRACE shows the store's own warnings and errors beside the edits.
        let trace = ProcessInfo.processInfo.environment["STRATA_FUZZ_TRACE"] != nil
        options.logger = .init(label: "strata.fuzz", factory: { label in
            guard trace else { return SwiftLogNoOpLogHandler() }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        })
        options.externalStorageThreshold = 64
        options.log.segmentSizeLimit = 2048
        options.log.blobFileSizeLimit = 3000
        options.log.compressRecords = compressed
        options.log.compressBlobs = compressed
        return options
    }

    /// The template's files, path → bytes, for uncompressed and compressed records.
    static let files: [Bool: [String: [UInt8]]] = {
        var result: [Bool: [String: [UInt8]]] = [:]
        for compressed in [false, true] { result[compressed] = (try? build(compressed: compressed)) ?? [:] }
        return result
    }()

    static func build(compressed: Bool) throws -> [String: [UInt8]] {
        guard let model else { return [:] }
        let memory = InMemoryFileSystem()
        let store = try ObjectStore(at: root, model: model, options: options(memory, compressed: compressed))
        for round in 0..<4 {
            let context = store.newContext()
            let department = try context.insert("Department")
            try department.setValue("D\(round)", forKey: "name")
            for i in 0..<5 {
                let employee = try context.insert("Employee")
                try employee.setValue("E\(round)-\(i) " + String(repeating: "abc", count: i * 4), forKey: "name")
                try employee.setValue(Double(i) * 1000.5, forKey: "salary")
                try employee.setValue(.int(Int64(round * 10 + i)), forKey: "serial")
                if i % 2 == 0 { try employee.setValue(Data((0..<(100 + 40 * i)).map { UInt8(truncatingIfNeeded: $0 * (round + 3)) }), forKey: "photo") }
                try employee.setObject(department, forKey: "department")
            }
            try context.save()
            if round == 2 {
                let employees = try context.fetch(FetchRequest(entityName: "Employee"))
                for employee in employees.prefix(3) { try context.delete(employee) }
                try context.save()
                try store.records.compact(force: true)
            }
        }
        try store.close()
        var files: [String: [UInt8]] = [:]
        for directory in ["", "/segments", "/index", "/blobs"] {
            for name in (try? memory.contentsOfDirectory(root + directory)) ?? [] {
                let path = root + directory + "/" + name
                if !memory.isDirectory(path), name != "LOCK", let bytes = memory.durableBytes(of: path) { files[path] = bytes }
            }
        }
        return files
    }
}
