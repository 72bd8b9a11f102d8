import Foundation
import GRDB
import Strata
import StrataLog

/// Compaction after overwriting half the objects. Set-up (not measured): a copy of the
/// fixture store of N employees, opened, every second employee's salary changed and
/// saved. Measured: Strata's compaction (`compact()` of the store's engine: rewrite
/// the live records of segments past the garbage threshold, swap, delete); SQLite
/// updates in place and has no garbage to collect, so its nearest operation, `VACUUM`
/// (rewrite the whole database), is the peer — for orientation.
public enum CompactionWorkload {
    public static func strata(_ employees: [Employee]) throws -> WorkloadIteration {
        let (scratch, copy) = try LightweightMigration.freshCopy(of: StrataObjectEngine(), employees)
        let store = try ObjectStore(at: StrataObjectEngine.storePath(in: copy), model: BenchModels.employees(),
                                    options: StrataObjectEngine.options())
        do {
            try CompactionWhileServing.overwriteHalf(store, try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Employee")))
        } catch {
            try? store.close()
            scratch.remove()
            throw error
        }
        let notes = Notes()
        return WorkloadIteration(
            run: {
                guard let log = store.segmentLog else { throw BenchError("the object store is not a segment log") }
                let report = try log.compact(force: false)
                notes["recordsRewritten"] = report.recordsRewritten
                notes["segmentBytesBefore"] = Int(report.segmentBytesBefore)
                notes["segmentBytesAfter"] = Int(report.segmentBytesAfter)
                return report.recordsRewritten
            },
            finish: { try store.close(); scratch.remove() },
            notes: notes)
    }

    public static func sqlite(_ employees: [Employee]) throws -> WorkloadIteration {
        let (scratch, copy) = try LightweightMigration.freshCopy(of: GRDBEngine(synchronous: .full), employees)
        let path = GRDBEngine.databasePath(in: copy)
        let store = try GRDBEmployeeStore(path: path, synchronous: .full)
        try store.pool.write { db in try db.execute(sql: "UPDATE employee SET salary = salary + 1 WHERE id % 2 = 0") }
        let notes = Notes()
        notes["bytesBefore"] = DiskUsage.bytes(at: copy)
        return WorkloadIteration(
            run: {
                try store.pool.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
                return try store.count()
            },
            finish: { notes["bytesAfter"] = DiskUsage.bytes(at: copy); try store.close(); scratch.remove() },
            notes: notes)
    }
}
