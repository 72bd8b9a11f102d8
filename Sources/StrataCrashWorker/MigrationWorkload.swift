import StrataTestSupport
import Foundation
import Logging
import Strata

/// The migration crash test's data and models (Tests/StrataTests/Crash): scenario 1's
/// Employees v1 → v2 photo split, as the first of a two-stage plan. The test builds the v1 store from the seed in its own
/// process, the worker migrates it, and the test recomputes from the seed alone what
/// either version of the store must hold after a kill.
enum MigrationWorkload {
    static let employeeCount = 300
    static let departmentNames = ["Sales", "Engineering", "Support"]
    /// Objects per migration batch: small, so one migration is many batches and commits.
    static let batchSize = 5

    /// What one employee of a seed's store holds.
    struct EmployeeSpec: Equatable, Sendable {
        var name: String
        var salary: Double
        var department: Int
        var photo: [UInt8]
    }

    /// Employee `index` of `seed`'s store. Photos straddle `externalStorageThreshold`,
    /// so the migration carries inline photos and blob references alike.
    static func employee(_ index: Int, seed: UInt64) -> EmployeeSpec {
        var random = SeededRandom(seed: seed, stream: UInt64(index), 0x4D49_4752)
        let department = random.int(in: 0...(departmentNames.count - 1))
        let salary = Double(random.int(in: 1_000...99_000))
        let size = random.chance(50) ? random.int(in: 1...(options().externalStorageThreshold - 1)) : random.int(in: options().externalStorageThreshold...6_000)
        var photo: [UInt8] = []
        photo.reserveCapacity(size)
        while photo.count < size {
            let word = random.next()
            for i in 0..<min(8, size - photo.count) { photo.append(UInt8(truncatingIfNeeded: word >> (8 * UInt64(i)))) }
        }
        return EmployeeSpec(name: "Employee \(index) of \(seed)", salary: salary, department: department, photo: photo)
    }

    /// Options both processes open the store with: tiny segments and blob files, so the
    /// staging store rolls segments and the swap moves several files.
    static func options(logger: Logger = CrashWorker.logger()) -> StoreOptions {
        var options = StoreOptions()
        options.log.segmentSizeLimit = 16 << 10
        options.log.blobFileSizeLimit = 64 << 10
        options.log.blockSize = 4 << 10
        options.externalStorageThreshold = 1 << 10
        options.logger = logger
        return options
    }

    /// `options()` plus the migration to v2 — the photo split, then an inferred stage —
    /// in batches of `batchSize`.
    static func migrationOptions(logger: Logger = CrashWorker.logger()) throws -> StoreOptions {
        var options = options(logger: logger)
        options.migration = .plan(try plan())
        options.migrationBatchSize = batchSize
        return options
    }

    /// Writes `seed`'s v1 store at `path` (which must not hold a store yet).
    static func createV1Store(at path: String, seed: UInt64) throws {
        let store = try ObjectStore(at: path, model: v1(), options: options())
        let context = store.newContext()
        var departments: [ManagedObject] = []
        for name in departmentNames {
            let department = try context.insert("Department")
            try department.setValue(name, forKey: "name")
            departments.append(department)
        }
        for index in 0..<employeeCount {
            let spec = employee(index, seed: seed)
            let employee = try context.insert("Employee")
            try employee.setValue(spec.name, forKey: "name")
            try employee.setValue(spec.salary, forKey: "salary")
            try employee.setValue(Data(spec.photo), forKey: "photo")
            try employee.setObject(departments[spec.department], forKey: "department")
            // Several commits, so the v1 store spans several segments and blob files too.
            if index % 50 == 49 { try context.save() }
        }
        try context.save()
        try store.close()
    }
}
