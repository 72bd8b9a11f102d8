import ArgumentParser
import Foundation
import Strata
import StrataScenarios

/// `strata demo`: scenario 1 as a user would watch it. Employees with photos in the blob
/// area; a list screen that reads names and not one photo byte; a migration that moves
/// every photo into its own entity by reference, under a memory budget; verify; a table.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Play the photo-list scenario: write, list names, migrate photos to their own entity, verify.")

    @Option(help: "How many employees to write.")
    var employees = 5_000

    @Option(name: .customLong("photo-kib"), help: "Size of each employee's photo in KiB.")
    var photoKiB = 32

    @Option(help: "Directory for the store (replaced if it holds a store; refused if it holds anything else).")
    var dir = "demo-store.strata"

    @Option(name: .customLong("memory-budget"), help: "Migration memory budget in MiB.")
    var memoryBudgetMiB = 64

    func run() throws {
        // Bounded so that no product of them overflows: ten million employees, photos of
        // at most 1 GiB, a budget of at most 1 TiB.
        guard (1...10_000_000).contains(employees), (0...(1 << 20)).contains(photoKiB), (1...(1 << 20)).contains(memoryBudgetMiB) else {
            Terminal.error("--employees must be 1 to 10000000, --photo-kib 0 to 1048576, --memory-budget 1 to 1048576")
            throw ExitCode(2)
        }
        let path = URL(fileURLWithPath: dir).standardizedFileURL.path
        // Replaced only when it is a store (an earlier demo's) or nothing: `--dir .`
        // must not take the current directory with it.
        if FileManager.default.fileExists(atPath: path) && !FileManager.default.fileExists(atPath: path + "/MANIFEST") {
            Terminal.error("\(path) exists and is not a Strata store: give --dir a new directory or an earlier demo's store")
            throw ExitCode(2)
        }
        try? FileManager.default.removeItem(atPath: path)
        let clock = ContinuousClock()
        var rows: [(String, String)] = []
        let v1 = try EmployeesScenario.v1()
        let v2 = try EmployeesScenario.v2()
        var options = StoreOptions()
        options.logger = CLILogging.logger

        // 1. A v1 store of employees with photos.
        let writeTime = try clock.measure {
            let store = try ObjectStore(at: path, model: v1, options: options)
            let context = store.newContext()
            var departments: [ManagedObject] = []
            for name in ["Sales", "Engineering", "Support", "Finance"] {
                let department = try context.insert("Department")
                try department.setValue(name, forKey: "name")
                departments.append(department)
            }
            var generator = DemoRandom(seed: 42)
            for i in 0..<employees {
                let employee = try context.insert("Employee")
                try employee.setValue("Employee \(i)", forKey: "name")
                try employee.setValue(Double(40_000 + (i % 50) * 1_000), forKey: "salary")
                try employee.setValue(Data(generator.bytes(photoKiB * 1024)), forKey: "photo")
                try employee.setObject(departments[i % departments.count], forKey: "department")
                if (i + 1) % 500 == 0 || i + 1 == employees {
                    try context.save()
                    context.reset()
                    departments = try context.fetch(FetchRequest(entityName: "Department", sortKeys: [.ascending("name")]))
                        .sorted { (try? $0.string("name")) ?? "" < (try? $1.string("name")) ?? "" }
                    Terminal.progress("writing employees", done: i + 1, total: employees)
                }
            }
            try store.close()
        }
        let storeBytes = Terminal.directoryBytes(path)
        let photoBytes = Int64(employees) * Int64(photoKiB) * 1024
        rows.append(("v1 store written", "\(employees) employees, \(photoKiB) KiB photos, \(Terminal.bytes(storeBytes)) in \(Terminal.seconds(writeTime))"))

        // 2. The list screen: names only.
        let (listed, listStats, listTime) = try listNames(path: path, model: v1, options: options)
        rows.append(("list screen (v1)", "\(listed) names in \(Terminal.seconds(listTime)), \(listStats.blobBytesRead) blob bytes read, \(Terminal.bytes(Int64(listStats.segmentBytesRead))) of records"))
        rows.append(("  naive (photos in rows)", "would pull \(Terminal.bytes(photoBytes)) of photos into memory"))
        rows.append(("  peak memory so far", Terminal.bytes(Int64(Terminal.peakResidentBytes()))))

        // 3. Migrate v1 → v2: photos move to their own entity, by reference.
        let blobBytesBefore = Terminal.directoryBytes(path + "/blobs")
        var migrating = options
        migrating.migration = .mappings([try EmployeesScenario.photoSplit(from: v1, to: v2)], models: [v2])
        migrating.migrationMemoryBudget = memoryBudgetMiB << 20
        let largest = LargestBatch()
        migrating.migrationProgress = { progress in
            largest.update(progress.largestBatch)
            if progress.pass == .createInstances { Terminal.progress("migrating to v2", done: progress.done, total: progress.total) }
        }
        let memoryBeforeMigration = Terminal.currentResidentBytes()
        var migrated: ObjectStore?
        let migrateTime = try clock.measure { migrated = try ObjectStore(at: path, model: v2, options: migrating) }
        let memoryAfterMigration = Terminal.peakResidentBytes()
        guard let store = migrated else { throw ExitCode(1) }
        let context = store.newContext()
        let photos = try context.count(for: FetchRequest(entityName: "Photo"))
        let report = try store.verify()
        try store.close()
        rows.append(("migration v1 → v2", "\(photos) Photo objects created in \(Terminal.seconds(migrateTime)), \(Terminal.bytes(Terminal.directoryBytes(path + "/blobs") - blobBytesBefore)) of blob bytes copied"))
        rows.append(("  memory", "budget \(memoryBudgetMiB) MiB, at most \(largest.value) objects in flight, process RSS \(Terminal.bytes(Int64(memoryBeforeMigration))) before, peak \(Terminal.bytes(Int64(memoryAfterMigration)))"))
        rows.append(("verify", report.isSound ? "sound (\(report.recordsChecked) records, \(report.blobsChecked) blobs checked)" : "\(report.problems.count) problems"))

        // 4. The list screen again, on v2.
        let (listedAgain, statsAgain, timeAgain) = try listNames(path: path, model: v2, options: options)
        rows.append(("list screen (v2)", "\(listedAgain) names in \(Terminal.seconds(timeAgain)), \(statsAgain.blobBytesRead) blob bytes read"))

        print("")
        print("Strata demo — employees and their photos (scenario 1)")
        for (name, value) in rows { print("  \(name.padding(toLength: 26, withPad: " ", startingAt: 0)) \(value)") }
        print("")
        print("The store is at \(path) (model v2). Try:")
        print("  swift run strata stats \(path)")
        print("  swift run strata verify \(path)")
        print("  swift run strata export \(path) --entity Employee | head")
        if !report.isSound { throw ExitCode(1) }
    }

    /// Opens the store and reads every employee's name, as a list screen would.
    private func listNames(path: String, model: ObjectModel, options: StoreOptions) throws -> (Int, LogStatistics, Duration) {
        let store = try ObjectStore(at: path, model: model, options: options)
        defer { try? store.close() }
        store.resetStatistics()
        let context = store.newContext()
        var count = 0
        let time = try ContinuousClock().measure {
            for employee in try context.fetch(FetchRequest(entityName: "Employee")) where try employee.string("name") != nil {
                count += 1
            }
        }
        return (count, store.statistics, time)
    }
}

/// The largest batch a migration reported, across its progress callbacks.
final class LargestBatch: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = 0
    func update(_ value: Int) { lock.withLock { stored = max(stored, value) } }
    var value: Int { lock.withLock { stored } }
}

/// Incompressible photo bytes, quickly (xorshift).
struct DemoRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func bytes(_ count: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        result.withUnsafeMutableBytes { raw in
            var i = 0
            while i + 8 <= count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                raw.storeBytes(of: state, toByteOffset: i, as: UInt64.self)
                i += 8
            }
        }
        return result
    }
}
