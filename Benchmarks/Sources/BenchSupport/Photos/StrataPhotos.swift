import Foundation
import Strata
import StrataScenarios
import StrataLog

/// Scenario 1 on Strata's object layer: building a v1 store, the list screen, and the
/// photo-split migration to v2 with `PhotoSplitPolicy`.
public enum StrataPhotos {
    public static func storePath(in directory: String) -> String {
        (directory as NSString).appendingPathComponent("Employees.strata")
    }

    /// Store options of the scenario. External storage at 8 KiB and up (the default,
    /// set explicitly): 1 KiB photos stay inline in their records, 64 KiB photos go to
    /// the blob area. Migration at the default 64 MiB budget.
    public static func options(durability: LogStoreOptions.Durability = .everyCommit) -> StoreOptions {
        var options = StrataObjectEngine.options(durability: durability)
        options.externalStorageThreshold = 8 << 10
        return options
    }

    /// Writes a v1 store of the scenario into `directory` (not measured): departments
    /// through a context, employees with `batchInsert` in transactions of 256.
    public static func build(in directory: String, _ scenario: PhotoScenario) throws {
        let store = try ObjectStore(at: storePath(in: directory), model: EmployeesScenario.v1(), options: options(durability: .none))
        defer { try? store.close() }
        let context = store.newContext()
        var departments: [ManagedObject] = []
        for d in 0..<PhotoScenario.departments {
            let department = try context.insert("Department")
            try department.setValue(.string("Department \(d)"), forKey: "name")
            departments.append(department)
        }
        try context.save()
        let departmentIDs = departments.map(\.objectID)
        var start = 0
        while start < scenario.employees {
            let end = min(scenario.employees, start + 256)
            try store.batchInsert(entityName: "Employee", objects: (start..<end).map { i in
                ["name": .string(PhotoScenario.name(i)), "salary": .double(PhotoScenario.salary(i)),
                 "photo": .binary(Data(PhotoScenario.photo(i, bytes: scenario.photoBytes)))]
            }, relationships: (start..<end).map { i in ["department": departmentIDs[i % departmentIDs.count]] })
            start = end
        }
        try store.close()
    }

    /// The list screen: open the v1 store (set-up), then fetch every employee and read
    /// its name. Notes `blobBytesRead` and `segmentBytesRead` of the measured part.
    public static func listNames(in directory: String) throws -> WorkloadIteration {
        let store = try ObjectStore(at: storePath(in: directory), model: EmployeesScenario.v1(), options: options())
        let notes = Notes()
        return WorkloadIteration(
            run: {
                store.resetStatistics()
                let context = store.newContext()
                var checksum = 0
                for employee in try context.fetch(FetchRequest(entityName: "Employee")) {
                    guard let name = try employee.string("name") else { continue }
                    checksum &+= name.utf8.count
                }
                notes["blobBytesRead"] = store.statistics.blobBytesRead
                notes["segmentBytesRead"] = store.statistics.segmentBytesRead
                return checksum
            },
            finish: { try store.close() },
            notes: notes)
    }

    /// The photo-split migration of the v1 store in `directory` (a copy: it is changed):
    /// opening with the v2 model migrates, with the default budget. Notes the disk use
    /// before (`diskBefore`), its peak during the migration (`diskPeak`), the record
    /// bytes (`recordBytes`: the segments before) and the photos created (`photos`).
    public static func migrate(in directory: String) throws -> WorkloadIteration {
        let path = storePath(in: directory)
        let notes = Notes()
        notes["recordBytes"] = DiskUsage.bytes(at: (path as NSString).appendingPathComponent("segments"))
        let sampler = DiskSampler(path: path)
        let v1 = try EmployeesScenario.v1()
        let v2 = try EmployeesScenario.v2()
        var migrating = options()
        migrating.migration = .mappings([try EmployeesScenario.photoSplit(from: v1, to: v2)], models: [v2])
        if ProcessInfo.processInfo.environment["STRATA_BENCH_TRACE_MIGRATION"] == "1" {
            // Diagnostics: the resident set at every progress report, on stderr.
            migrating.migrationProgress = { progress in
                let line = "\(progress) rss \(Double(ResidentMemory.current ?? 0) / 1_048_576) MiB peak \(Double(ResidentMemory.peak ?? 0) / 1_048_576) MiB\n"
                FileHandle.standardError.write(Data(line.utf8))
            }
        }
        return WorkloadIteration(
            run: {
                notes["diskBefore"] = sampler.start()
                let store: ObjectStore
                do {
                    store = try ObjectStore(at: path, model: v2, options: migrating)
                } catch {
                    _ = sampler.stop()
                    throw error
                }
                notes["diskPeak"] = sampler.stop()
                let photos = Result { try store.newContext().count(for: FetchRequest(entityName: "Photo")) }
                try store.close()
                notes["photos"] = try photos.get()
                return try photos.get()
            },
            finish: {},
            notes: notes)
    }
}
