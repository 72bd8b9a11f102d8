import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// The fault sweep over a compaction that rewrites records of older layouts and then
/// drops the layouts: the Nth write, fsync, rename, directory fsync or create fails
/// with EIO or ENOSPC, then the power goes. The store must reopen holding the same
/// objects, sound, and its layout table must still list every layout a record uses —
/// the older layouts are dropped only when no record of them is left, and if they were
/// not, the next compaction drops them.
@Suite struct LayoutRewriteFaultTests {
    typealias Sweep = ObjectFaultSweepTests

    struct Run {
        var before: [String]
        var reopened: [String]
        var counts: [Fault.Operation: Int]
        var fired: Bool
        var sound: Bool
        var olderLayoutsLeft: Bool
    }

    /// Six employees written at v1 and a few at v2 after an in-place migration, so that
    /// records of two layouts lie in several segments.
    static func build(_ fileSystem: any FileSystem) throws -> ObjectStore {
        do {
            let store = try ObjectStore(at: Sweep.root, model: try Sweep.company(), options: Sweep.options(fileSystem))
            try Sweep.populate(store)
            try Sweep.populate(store)
            try store.close()
        }
        var options = Sweep.options(fileSystem)
        let v1 = try Sweep.company(), v2 = try Sweep.company(version: "2", extra: true)
        options.migration = .plan(MigrationPlan(models: [v1, v2], stages: [.lightweight(from: v1, to: v2)]))
        let store = try ObjectStore(at: Sweep.root, model: v2, options: options)
        #expect(store.schema.layoutTable.holdsOlderLayouts)
        let context = store.newContext()
        let employee = try context.insert("Employee")
        try employee.setValue("late", forKey: "name")
        try employee.setValue("manager", forKey: "title")
        try context.save()
        return store
    }

    static func run(fault: Fault?) throws -> Run {
        let memory = InMemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        let store = try build(fs)
        let before = try Sweep.snapshot(store)
        fs.resetCounts()
        let id = fault.map { fs.inject($0) }
        // What `ObjectStore.compact()` does, on this thread.
        _ = try? store.records.compact(force: false)
        _ = try? store.dropRewrittenLayouts()
        let counts = fs.counts
        let fired = id.map { fs.timesFired($0) > 0 } ?? false
        try? store.close()
        fs.clearFaults()
        memory.crash()
        let reopened = try ObjectStore(at: Sweep.root, model: try Sweep.company(version: "2", extra: true), options: Sweep.options(memory))
        defer { try? reopened.close() }
        let snapshot = try Sweep.snapshot(reopened)
        let sound = try reopened.verify().isSound
        let left = reopened.schema.layoutTable.holdsOlderLayouts
        // A compaction after the fault finishes the work.
        _ = try reopened.records.compact(force: false)
        try reopened.dropRewrittenLayouts()
        #expect(!(try LayoutTable.decode(try #require(reopened.records.metadata[LayoutTable.metadataKey])).holdsOlderLayouts))
        #expect(try Sweep.snapshot(reopened) == before)
        return Run(before: before, reopened: snapshot, counts: counts, fired: fired, sound: sound, olderLayoutsLeft: left)
    }

    @Test func failingAnOperationOfALayoutRewriteKeepsEveryObject() throws {
        let clean = try Self.run(fault: nil)
        #expect(!clean.olderLayoutsLeft, "the clean compaction dropped the older layouts")
        #expect(clean.reopened == clean.before)
        var fired = 0
        for operation in Sweep.operations {
            let total = clean.counts[operation] ?? 0
            for occurrence in Sweep.sample(total) {
                for errno: Int32 in [5, 28] {
                    let context = "\(operation) #\(occurrence) of \(total), errno \(errno)"
                    let run: Run
                    do {
                        run = try Self.run(fault: .fail(operation, errno: errno, on: .nth(occurrence)))
                    } catch {
                        Issue.record("\(context): after power loss the store does not reopen: \(error)")
                        continue
                    }
                    if run.fired { fired += 1 }
                    #expect(run.reopened == run.before, "\(context): the objects changed")
                    #expect(run.sound, "\(context): verify is not sound after reopening")
                }
            }
        }
        #expect(fired > 0)
    }
}
