import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// History under failing I/O, through the fault-injecting file system over an
/// in-memory one: a save whose write or fsync fails, a deleteHistory whose transactions
/// fail part-way, and a compaction that fails under an open snapshot. After each, the
/// power goes, and the reopened store's history is still one entry per object-changing
/// commit, every token it accepts is answered without a gap, and the store reads as of
/// each of them as it did before.
@Suite struct HistoryFaultTests {
    static let root = "/store"

    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Item") {
                Attribute("index", .int64)
                Attribute("name", .string).preservesValueOnDeletion()
                Attribute("payload", .binary, optional: true, externalStorage: true)
            }
            Entity("Tally") {
                Attribute("count", .int64)
            }
        }
    }

    /// Tiny segments and blob files, so that saves roll segments and write blobs;
    /// `large` for the store of thousands of commits, which would otherwise be
    /// thousands of segments.
    static func options(_ fileSystem: any FileSystem, large: Bool = false) -> StoreOptions {
        var options = StoreOptions()
        options.fileSystem = fileSystem
        options.logger = .quiet
        options.historyTracking = true
        options.historyRetention = .unbounded
        options.externalStorageThreshold = 256
        if !large {
            options.log.segmentSizeLimit = 2048
            options.log.blobFileSizeLimit = 4096
            options.log.compactionBatchBytes = 2048
        }
        return options
    }

    /// 300 to 1,300 bytes: above the external-storage threshold, so a blob.
    static func payload(_ seed: Int) -> Data {
        Data((0..<(300 + seed * 97 % 1000)).map { UInt8(truncatingIfNeeded: $0 &* (seed + 7)) })
    }

    // MARK: A save whose write or fsync fails

    /// Saves `saves` times: save i inserts item i (every third with a blob), sets the
    /// tally to i and deletes item i − 3, so what survives names the last save that did.
    static let saves = 8

    struct SaveRun {
        var counts: [Fault.Operation: Int] = [:]
        var segmentWrites = 0
        var fired = false
        var failedPaths: [String] = []
        /// The save that threw, and whether the store then refused writes.
        var failed: (index: Int, readOnly: Bool)?
        var problems: [String] = []
    }

    /// Each write, each fsync and each segment append (short) of the saves fails in
    /// turn. A failed fsync, or a write the engine could not take back, leaves the store
    /// read-only until reopened; a segment write taken back leaves it writing on with
    /// nothing of the save committed. Either way the reopened store's history is one
    /// entry per surviving save.
    @Test func aSaveWhoseWriteOrFsyncFailsKeepsHistoryOneToOneWithCommits() throws {
        let clean = try Self.runSaves(fault: nil)
        #expect(clean.failed == nil && clean.problems == [], "the clean run: \(clean.problems)")
        var faults: [Fault] = []
        for n in ObjectFaultSweepTests.sample(clean.counts[.write] ?? 0) { faults.append(.fail(.write, on: .nth(n))) }
        for n in ObjectFaultSweepTests.sample(clean.counts[.sync] ?? 0) { faults.append(.fail(.sync, on: .nth(n))) }
        for n in ObjectFaultSweepTests.sample(clean.segmentWrites) { faults.append(.shortWrite(keeping: 9, matching: "segments/", on: .nth(n))) }
        var failedSaves = 0, readOnly = 0
        for fault in faults {
            let run = try Self.runSaves(fault: fault)
            #expect(run.problems == [], "\(fault): \(run.problems)")
            // A save fails only for a fault that fired, and one fails for every fault
            // that fired, but in an index file (FORMAT.md §7: a segment without a sound
            // one is scanned at open).
            #expect(run.failed == nil ? !run.fired || run.failedPaths.allSatisfy { $0.contains("/index/") } : run.fired,
                    "\(fault): fired \(run.fired) on \(run.failedPaths), a save failed: \(run.failed.map { "\($0)" } ?? "no")")
            if let failed = run.failed {
                failedSaves += 1
                if failed.readOnly { readOnly += 1 }
            }
        }
        // Both outcomes are covered: a save that failed with the store then refusing
        // writes, and one whose bytes were taken back with the store writing on.
        #expect(failedSaves > faults.count / 2 && readOnly > 0 && readOnly < failedSaves, "\(failedSaves) saves of \(faults.count) failed, \(readOnly) leaving the store read-only")
    }

    /// Runs the saves under `fault`. At the first save that throws: when the store then
    /// refuses writes, another save is refused too and the loop ends; otherwise the save left
    /// nothing (no commit, no entry), and its retry commits it with its entry. Then the
    /// power goes, and the reopened store holds a prefix of the saves and exactly their
    /// entries, each naming what its save did.
    static func runSaves(fault: Fault?) throws -> SaveRun {
        var run = SaveRun()
        let memory = InMemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        let model = try model()
        var ids: [Int: ObjectID] = [:]
        var tallyID: ObjectID
        var base: UInt64
        do {
            let store = try ObjectStore(at: root, model: model, options: options(fs))
            defer { try? store.close() }
            let context = store.newContext()
            context.transactionAuthor = "saver"
            let tally = try context.insert("Tally")
            try tally.setValue(0, forKey: "count")
            try context.save()
            tallyID = tally.objectID
            base = store.currentHistoryToken.sequence
            fs.resetCounts()
            fs.isRecording = true
            let id = fault.map { fs.inject($0) }
            for i in 1...saves {
                let item = try context.insert("Item")
                try item.setValue(i, forKey: "index")
                try item.setValue("item-\(i)", forKey: "name")
                if i % 3 == 0 { try item.setValue(payload(i), forKey: "payload") }
                ids[i] = item.objectID
                try tally.setValue(i, forKey: "count")
                if let old = ids[i - 3] { try context.delete(try context.existingObject(with: old)) }
                let before = store.currentHistoryToken
                do {
                    try context.save()
                    continue
                } catch {}
                let readOnly = store.records.writeRefusal != nil
                run.failed = (i, readOnly)
                // In this process too, what is visible is whole: the save's commit with
                // its entry, or neither.
                let after = store.records.lastSequence
                let entries = try store.records.keys(in: HistoryLog.entries).map(HistoryLog.sequence(of:)).filter { $0 > before.sequence }
                if after != before.sequence + (entries.isEmpty ? 0 : 1) || entries.count > 1 {
                    run.problems.append("save \(i) failed, and the store shows sequences \(before.sequence)...\(after) with \(entries.count) entries")
                }
                // History hands out no transaction a crash may not keep: one visible
                // whose fsync failed is refused with the failure, not listed.
                if entries.isEmpty {
                    if try !store.fetchHistory(after: before).isEmpty { run.problems.append("save \(i) failed, and history lists a transaction") }
                } else {
                    #expect { try store.fetchHistory(after: before) } throws: { ($0 as? StrataError)?.code == .io }
                }
                if readOnly {
                    // A save from another context: this one's may count as done, its commit
                    // applied before the fsync failed.
                    let other = store.newContext()
                    let refused = try other.insert("Item")
                    try refused.setValue(0, forKey: "index")
                    try refused.setValue("refused", forKey: "name")
                    #expect { try other.save() } throws: { ($0 as? StrataError)?.code == .readOnly }
                    break
                }
                // Taken back whole: nothing of it is visible, and it can be saved again.
                let visible = try store.newContext().count(for: FetchRequest(entityName: "Item", predicate: try Predicate(format: "index == %@", i)))
                if after != before.sequence || visible != 0 {
                    run.problems.append("save \(i) failed, the store writes on, but the save is visible (last sequence \(before.sequence) → \(after))")
                }
                fs.clearFaults()
                try context.save()
            }
            run.counts = fs.counts
            run.segmentWrites = fs.events.filter { $0.operation == .write && $0.paths.contains { $0.contains("segments/") } }.count
            run.fired = id.map { fs.timesFired($0) > 0 } ?? false
            run.failedPaths = fs.events.filter { $0.injectedErrno != nil }.flatMap(\.paths)
            fs.isRecording = false
        }
        fs.clearFaults()
        memory.crash()

        let store = try ObjectStore(at: root, model: model, options: options(memory))
        defer { try? store.close() }
        let context = store.newContext()
        let survived = try context.existingObject(with: tallyID).int("count") ?? -1
        var allowed = [saves]
        if let failed = run.failed, failed.readOnly { allowed = [failed.index - 1, failed.index] }
        if !allowed.contains(survived) { run.problems.append("the tally survived at \(survived), expected one of \(allowed)") }
        let items = try context.fetch(FetchRequest(entityName: "Item", sortKeys: [SortKey("index")])).map { try $0.int("index") ?? -1 }
        if items != Array(max(1, survived - 2)...max(1, survived)).filter({ $0 <= survived }) {
            run.problems.append("items \(items) survived with the tally at \(survived)")
        }
        // Every commit after the tally's is a save with its entry, and nothing else is.
        let last = store.currentHistoryToken.sequence
        if last != base + UInt64(max(0, survived)) {
            run.problems.append("the last sequence is \(last), but \(survived) saves after \(base) survived")
        }
        let raw = try store.records.keys(in: HistoryLog.entries).map(HistoryLog.sequence(of:))
        if raw != Array(base...last) { run.problems.append("entries at \(raw), commits \(base)...\(last)") }
        let history = try store.fetchHistory(after: HistoryToken(sequence: base, storeIdentifier: store.identifier))
        for (k, transaction) in history.enumerated() {
            let i = k + 1
            var expected: Set<String> = ["insert \(ids[i]!.key.rawValue)", "update \(tallyID.key.rawValue) [\"count\"]"]
            if let old = ids[i - 3] { expected.insert("delete \(old.key.rawValue) item-\(i - 3)") }
            let found = Set(transaction.changes.map { change -> String in
                switch change.changeType {
                case .insert: "insert \(change.changedObjectID.key.rawValue)"
                case .update: "update \(change.changedObjectID.key.rawValue) \(change.updatedAttributes)"
                case .delete:
                    if case .string(let name)? = change.tombstone?["name"] { "delete \(change.changedObjectID.key.rawValue) \(name)" } else {
                        "delete \(change.changedObjectID.key.rawValue) without its name"
                    }
                }
            })
            if transaction.author != "saver" || found != expected || transaction.changes.count != expected.count {
                run.problems.append("entry \(transaction.token.sequence) of save \(i) by \(transaction.author ?? "nil"): \(found.sorted()), expected \(expected.sorted())")
            }
        }
        run.problems += store.historyProblems(limit: 5).map { "history: \($0)" }
        if !(try store.verify().isSound) { run.problems.append("verify is not sound") }
        return run
    }

    // MARK: deleteHistory failing part-way

    @Test func aDeleteHistoryThatFailsPartWayLeavesEveryAcceptedTokenAnsweredWhole() throws {
        // More entries than one deleting transaction takes (8,192): the delete is two.
        let memory = InMemoryFileSystem()
        var commits: [UInt64] = []
        var initialHorizon: UInt64 = 0
        do {
            let store = try ObjectStore(at: Self.root, model: try Self.model(), options: Self.options(memory, large: true))
            initialHorizon = try #require(try store.historyHorizon()).sequence
            for i in 0..<8_300 {
                let values: [String: Value] = ["index": .int(Int64(i)), "name": .string("b\(i)")]
                try store.batchInsert(entityName: "Item", objects: [values])
                commits.append(store.currentHistoryToken.sequence)
            }
            try store.close()
        }
        memory.makeAllDurable()
        let cut = commits[8_250]

        let clean = try Self.deleteHistory(before: cut, on: memory.crashedCopy(), fault: nil)
        #expect(clean.threw == false)
        var runs = 0, threw = 0
        for operation: Fault.Operation in [.write, .sync, .rename] {
            for n in ObjectFaultSweepTests.sample(clean.counts[operation] ?? 0) {
                let copy = memory.crashedCopy()
                let run = try Self.deleteHistory(before: cut, on: copy, fault: .fail(operation, on: .nth(n)))
                runs += 1
                if run.threw { threw += 1 }
                let store = try ObjectStore(at: Self.root, model: try Self.model(), options: Self.options(copy, large: true))
                defer { try? store.close() }
                let problems = try Self.answeredWhole(store, commits: commits, horizons: [initialHorizon, cut - 1])
                #expect(problems == [], "\(operation) #\(n) (threw: \(run.threw)): \(problems.prefix(10))")
            }
        }
        #expect(runs > 0 && threw > 0, "\(threw) of \(runs) deletes failed")
    }

    /// Deletes the history before `cut` on a store in `memory` (under `fault`), then
    /// the power goes.
    static func deleteHistory(before cut: UInt64, on memory: InMemoryFileSystem, fault: Fault?) throws -> (threw: Bool, counts: [Fault.Operation: Int]) {
        let fs = FaultInjectingFileSystem(wrapping: memory)
        let store = try ObjectStore(at: root, model: try model(), options: options(fs, large: true))
        fs.resetCounts()
        if let fault { fs.inject(fault) }
        var threw = false
        do {
            try store.deleteHistory(before: HistoryToken(sequence: cut, storeIdentifier: store.identifier))
        } catch {
            threw = true
        }
        let counts = fs.counts
        try? store.close()
        fs.clearFaults()
        memory.crash()
        return (threw, counts)
    }

    /// Every token from 0 to the last sequence: refused as expired below the horizon,
    /// answered from the horizon on with exactly the commits after it (all of `commits`
    /// changed objects; the other sequences changed none). The horizon must be one of
    /// `horizons`. Then moving the horizon on deletes what a failure left below it.
    static func answeredWhole(_ store: ObjectStore, commits: [UInt64], horizons: [UInt64]) throws -> [String] {
        var problems: [String] = []
        let last = store.currentHistoryToken.sequence
        guard let horizon = try store.historyHorizon()?.sequence else { return ["history is not tracked"] }
        if !horizons.contains(horizon) { problems.append("the horizon is \(horizon), expected one of \(horizons)") }
        // The deleting transactions come after the commits, and have no entry.
        if last < commits.last ?? 0 { problems.append("the last sequence is \(last), before the last commit \(commits.last ?? 0)") }
        func token(_ t: UInt64) -> HistoryToken { HistoryToken(sequence: t, storeIdentifier: store.identifier) }
        var next = commits.startIndex
        for t in 0...last where problems.count < 10 {
            while next < commits.endIndex && commits[next] <= t { next += 1 }
            if t < horizon {
                do {
                    _ = try store.fetchHistory(after: token(t), limit: 1)
                    problems.append("token \(t), below the horizon \(horizon), is answered")
                } catch let error as StrataError where error.code == .historyTokenExpired {
                } catch {
                    problems.append("token \(t): \(error)")
                }
                continue
            }
            // Where each answer starts (three entries of it); whole from the horizon.
            let limit = t == horizon ? Int.max : 3
            let answer = try store.fetchHistory(after: token(t), limit: limit).map(\.token.sequence)
            let expected = Array(commits[next...].prefix(limit))
            if answer != expected {
                problems.append("token \(t): answered \(answer.prefix(5))… (\(answer.count)), expected \(expected.prefix(5))… (\(expected.count))")
            }
        }
        problems += store.historyProblems(limit: 5).map { "history: \($0)" }
        if !(try store.verify().isSound) { problems.append("verify is not sound") }
        // Entries a failure left below the horizon go when it next moves.
        try store.deleteHistory(before: token(horizon + 2))
        let below = try store.records.keys(in: HistoryLog.entries.lowerBound..<HistoryLog.key(horizon + 2))
        if !below.isEmpty { problems.append("\(below.count) entries are left below the horizon once it moved on") }
        if try store.fetchHistory(after: token(horizon + 1)).map(\.token.sequence) != commits.filter({ $0 > horizon + 1 }) {
            problems.append("after the horizon moved on, the history after it is not whole")
        }
        return problems
    }

    // MARK: A compaction that fails under an open snapshot

    @Test func aCompactionThatFailsUnderASnapshotKeepsTheSnapshotTheStoreAndItsHistory() async throws {
        let clean = try await Self.compactUnderSnapshot(fault: nil)
        #expect(clean.problems == [] && !clean.threw, "the clean run: \(clean.problems)")
        #expect(clean.segmentsCompacted > 0)
        var runs = 0, threw = 0
        for operation: Fault.Operation in [.write, .sync, .rename, .create] {
            for n in ObjectFaultSweepTests.sample(clean.counts[operation] ?? 0) {
                let run = try await Self.compactUnderSnapshot(fault: .fail(operation, on: .nth(n)))
                runs += 1
                if run.threw { threw += 1 }
                #expect(run.problems == [], "\(operation) #\(n) (threw: \(run.threw)): \(run.problems)")
            }
        }
        #expect(threw > runs / 2, "\(threw) of \(runs) compactions failed")
    }

    struct CompactionRun {
        var threw = false
        var counts: [Fault.Operation: Int] = [:]
        var segmentsCompacted = 0
        var problems: [String] = []
    }

    /// Every item as a line (index, name, payload size), in index order.
    static func items(_ store: ObjectStore) throws -> [String] {
        let context = store.newContext()
        return try context.fetch(FetchRequest(entityName: "Item", sortKeys: [SortKey("index")])).map {
            "\(try $0.int("index") ?? -1) \(try $0.string("name") ?? "") \(try $0.data("payload")?.count ?? 0)"
        }
    }

    /// A store with history, garbage (objects renamed, deleted, blobs replaced) and
    /// history tombstones (a deleteHistory); a snapshot taken, saves after it; then a
    /// compaction under `fault`. The snapshot reads what it read, the store what it
    /// held, and after the power goes the store is sound with its history whole.
    static func compactUnderSnapshot(fault: Fault?) async throws -> CompactionRun {
        var run = CompactionRun()
        let memory = InMemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        let model = try model()
        var expectedItems: [String]
        var expectedHistory: [HistoryTransaction]
        // The items as of tokens from the horizon on, read before the compaction.
        var past: [HistoryToken: [String]] = [:]
        func checkPast(_ store: ObjectStore, _ when: String) throws {
            for (token, expected) in past.sorted(by: { $0.key < $1.key }) {
                let then = try store.snapshot(at: token)
                defer { try? then.close() }
                if try items(then) != expected {
                    run.problems.append("\(when), the items as of \(token.sequence) differ")
                    return
                }
            }
        }
        do {
            let store = try ObjectStore(at: root, model: model, options: options(fs))
            let context = store.newContext()
            context.transactionAuthor = "compactor"
            var objects: [ManagedObject] = []
            var middle: HistoryToken?
            for round in 0..<30 {
                for k in 0..<4 {
                    let item = try context.insert("Item")
                    try item.setValue(round * 4 + k, forKey: "index")
                    try item.setValue("item-\(round * 4 + k)", forKey: "name")
                    if k == 0 { try item.setValue(payload(round), forKey: "payload") }
                    objects.append(item)
                }
                for object in objects.prefix(10) { try object.setValue("renamed-\(round)-\(try object.int("index") ?? 0)", forKey: "name") }
                if round % 3 == 2, objects.count > 20 { try context.delete(objects.remove(at: 12)) }
                if round % 4 == 1 { try objects[0].setValue(payload(100 + round), forKey: "payload") }
                try context.save()
                if round == 15 { middle = store.currentHistoryToken }
            }
            try store.deleteHistory(before: try #require(middle))
            let snapshot = try store.snapshot()
            let snapshotItems = try items(snapshot)
            let snapshotHistory = try snapshot.fetchHistory()
            for round in 30..<34 {
                try objects[round - 28].setValue("after-\(round)", forKey: "name")
                try context.delete(objects.remove(at: 30))
                try context.save()
            }
            expectedItems = try items(store)
            expectedHistory = try store.fetchHistory()
            for (i, transaction) in expectedHistory.enumerated() where i % 3 == 0 || i == expectedHistory.count - 1 {
                let then = try store.snapshot(at: transaction.token)
                past[transaction.token] = try items(then)
                try await then.close()
            }

            fs.resetCounts()
            let id = fault.map { fs.inject($0) }
            do {
                run.segmentsCompacted = try await store.compact(force: true).segmentsCompacted
            } catch {
                run.threw = true
            }
            run.counts = fs.counts
            if let id, fs.timesFired(id) > 0, !run.threw {
                run.problems.append("the compaction swallowed the failure")
            }
            fs.clearFaults()
            if try items(snapshot) != snapshotItems { run.problems.append("the snapshot's items changed") }
            if try snapshot.fetchHistory() != snapshotHistory { run.problems.append("the snapshot's history changed") }
            if try items(store) != expectedItems { run.problems.append("the store's items changed") }
            if try store.fetchHistory() != expectedHistory { run.problems.append("the store's history changed") }
            try checkPast(store, "after the compaction")
            // A store still writing keeps history with its commits.
            if store.records.writeRefusal == nil {
                try objects[1].setValue("after-the-compaction", forKey: "name")
                try context.save()
                let entry = try store.fetchHistory(after: try #require(expectedHistory.last).token)
                if entry.map(\.changes.count) != [1] { run.problems.append("the save after the compaction has entries \(entry)") }
                expectedItems = try items(store)
                expectedHistory += entry
            }
            try await snapshot.close()
            try? await store.close()
        }
        memory.crash()
        let store = try ObjectStore(at: root, model: model, options: options(memory))
        if try items(store) != expectedItems { run.problems.append("after the power loss the items differ") }
        if try store.fetchHistory() != expectedHistory {
            run.problems.append("after the power loss the history differs: \(try store.fetchHistory().map(\.token.sequence)) ≠ \(expectedHistory.map(\.token.sequence))")
        }
        run.problems += store.historyProblems(limit: 5).map { "history: \($0)" }
        if !(try store.verify().isSound) { run.problems.append("verify is not sound after reopening") }
        try checkPast(store, "after the power loss")
        // It compacts cleanly now, and keeps all of it.
        _ = try await store.compact(force: true)
        if try items(store) != expectedItems || (try store.fetchHistory()) != expectedHistory {
            run.problems.append("a compaction after reopening changed the items or the history")
        }
        try checkPast(store, "after compacting again")
        if !(try store.verify().isSound) { run.problems.append("verify is not sound after compacting again") }
        try await store.close()
        return run
    }
}
