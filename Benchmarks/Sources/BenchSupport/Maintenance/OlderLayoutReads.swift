import Foundation
import Strata
import StrataLog

/// The read-forward cost: 100k random lookups by id (name, salary and bonus read
/// through faults) in a store of N employees migrated in place to
/// `BenchModels.employeesWithBonus()` with every other record rewritten since, so half
/// the records are of the older layout and read forward; beside the same lookups in a
/// store written directly at that model, every record current.
///
/// Both stores have the same history by default (every other employee rewritten, then
/// sealed and compacted), so that they lie on disk alike and only the layouts differ:
/// a store with rewritten records keeps them in segments of their own, whose key
/// ranges overlap the older segments', and a lookup probes more index files there
/// whatever the layouts. A store written once (`current(_:rewritingEveryOther:)` with
/// false) shows that cost apart.
public enum OlderLayoutReads {
    /// How the migrated store is brought to rest before it is read.
    public enum Settling: String, CaseIterable, Sendable {
        /// Sealed and compacted with `compactionRewritesOlderLayouts` off: compaction copies records
        /// as they are, so half of them stay of the older layout and are read forward,
        /// and the store lies on disk like one compacted without older layouts. The
        /// finding's comparison.
        case keepingLayouts
        /// Sealed and compacted as the store compacts itself: the older-layout records
        /// are written in the current layout, and the store is opened again, which
        /// drops the older layouts from its table (FORMAT.md §11.4; the schema that
        /// open reads still names them, until the next open). Reads as the store does
        /// after a compaction pass.
        case compactionPass
        /// Sealed and compacted rewriting older layouts, the store left open: every record is
        /// current, but the open schema still names the older layouts, so every read
        /// takes the forwarding path without forwarding anything.
        case rewrittenStillOpen
        /// Neither sealed nor compacted: the superseded versions of the rewritten half
        /// stay in the older segments, and half the records are of the older layout.
        case unsettled
    }

    public final class Store {
        let scratch: ScratchDirectory
        let store: ObjectStore
        let objectIDs: [ObjectID]

        init(scratch: ScratchDirectory, store: ObjectStore) throws {
            self.scratch = scratch
            self.store = store
            objectIDs = try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Employee"))
        }

        public func close() {
            try? store.close()
            scratch.remove()
        }

        /// The lookups, one context for all of them, as workload 3 does.
        public func fetch(ids: [Int64]) -> WorkloadIteration {
            WorkloadIteration(run: { try self.layoutLookups(ids: ids) }, finish: {})
        }

        /// The measured part of `fetch(ids:)`, named apart so that a profiler can
        /// collect it alone (`--toggle-collect='*layoutLookups*'`).
        public func layoutLookups(ids: [Int64]) throws -> Int {
            let context = store.newContext()
            var checksum = 0
            for id in ids {
                let index = Int(id) - 1
                guard objectIDs.indices.contains(index) else { continue }
                let employee = try context.object(with: objectIDs[index])
                guard let name = try employee.string("name"), let salary = try employee.int("salary"),
                      let bonus = try employee.int("bonus") else { continue }
                checksum &+= Employee.fetchChecksum(name: name, salary: Int64(salary)) &+ bonus
            }
            return checksum
        }

        /// How the employees' records lie: how many there are of each layout id (the
        /// codec's version byte, then the id as a varint, one byte for small ids;
        /// version 1 records are of the first layout; FORMAT.md §11.1), and the store's
        /// segment count. For checking that a settling did what it says.
        public func census() throws -> (layouts: [Int: Int], segments: Int) {
            var layouts: [Int: Int] = [:]
            for id in objectIDs {
                guard let value = try store.segmentLog?.get(id.key)?.value else { continue }
                let layout = value.count > 1 && value[0] == 2 ? Int(value[1]) : 1
                layouts[layout, default: 0] += 1
            }
            return (layouts, store.usage.segmentCount)
        }
    }

    /// The fixture copied, migrated in place, and every other employee given a bonus
    /// of 0 again (the value it reads anyway): rewritten in the current layout.
    public static func mixed(_ employees: [Employee], settling: Settling = .keepingLayouts) throws -> Store {
        let (scratch, copy) = try LightweightMigration.freshCopy(of: StrataObjectEngine(), employees)
        var options = StrataObjectEngine.options()
        options.migration = .inferred
        // Kept layouts: compaction copies the older-layout records as they are.
        options.compactionRewritesOlderLayouts = settling != .keepingLayouts
        let path = StrataObjectEngine.storePath(in: copy)
        let model = try BenchModels.employeesWithBonus()
        var store = try ObjectStore(at: path, model: model, options: options)
        try rewriteEveryOther(store)
        switch settling {
        case .keepingLayouts:
            try settle(store)
        case .compactionPass:
            try settle(store)
            try store.close()
            store = try ObjectStore(at: path, model: model, options: options)
        case .rewrittenStillOpen:
            try settle(store)
        case .unsettled:
            break
        }
        return try Store(scratch: scratch, store: store)
    }

    /// Every other employee given a bonus of 0 (the value it holds or reads anyway)
    /// and saved: written again, in the current layout.
    static func rewriteEveryOther(_ store: ObjectStore) throws {
        let objectIDs = try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Employee"))
        for start in stride(from: 0, to: objectIDs.count, by: 20_000) {
            let context = store.newContext()
            for index in stride(from: start, to: min(start + 20_000, objectIDs.count), by: 2) {
                try context.object(with: objectIDs[index]).setValue(Value.int(0), forKey: "bonus")
            }
            try context.save()
        }
    }

    /// Sealed and compacted, so that both stores lie on disk alike: with the store's
    /// `compactionRewritesOlderLayouts` off, only the layouts differ.
    static func settle(_ store: ObjectStore) throws {
        guard let log = store.segmentLog else { return }
        try log.sealActiveSegment()
        try log.compact(force: true)
    }

    /// The same employees written directly at the new model: every record current.
    /// With `rewritingEveryOther`, every other one is then written again as in
    /// `mixed(_:settling:)`, before the store is settled alike.
    public static func current(_ employees: [Employee], rewritingEveryOther: Bool = true) throws -> Store {
        let scratch = try ScratchDirectory("current-layout")
        let store = try ObjectStore(at: StrataObjectEngine.storePath(in: scratch.path), model: try BenchModels.employeesWithBonus(),
                                    options: StrataObjectEngine.options())
        for start in stride(from: 0, to: employees.count, by: 50_000) {
            _ = try store.batchInsert(entityName: "Employee", objects: employees[start..<min(start + 50_000, employees.count)].map { e in
                ["name": .string(e.name), "email": .string(e.email), "salary": .int(e.salary), "departmentID": .int(e.departmentID), "bonus": .int(0)]
            })
        }
        if rewritingEveryOther { try rewriteEveryOther(store) }
        try settle(store)
        return try Store(scratch: scratch, store: store)
    }
}
