import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog
@testable import StrataCrashWorker

/// History stays one entry per object-changing commit under real crashes. The `history`
/// worker commits a seeded mix on a store that tracks history — saves by an author,
/// chunked saves, batch inserts of both forms, batch deletes, deleteHistory, compactions
/// — journalling each operation before it starts and once it returned, and the test
/// SIGKILLs it at random moments, round after round on one store. After each kill the
/// store is reopened and held against the journal: every acknowledged commit that
/// changed objects, at or above the horizon, has its entry, with the author and the
/// changes the worker made (keys, kinds, attributes written, tombstones); no sequence
/// has an entry that is not such a commit (maintenance commits, opens, an interrupted
/// operation that did not land); the interrupted operation landed whole or not at all,
/// and has its entry exactly when it landed; `fetchHistory()` is in strictly increasing
/// order; the objects are what the journal says, and as of tokens from the horizon on
/// (`snapshot(at:)`) what it said then; `verify` and the history checks are clean.
@Suite(.serialized) struct HistoryCrashTests {
    static let rounds = 10

    @Test func killedWorkerLeavesOneEntryPerCommit() throws {
        let began = ContinuousClock.now
        let result = try HistoryCrashRounds(rounds: Self.rounds).run()
        print("real-crash history mode, \(result.kills) rounds: \(result), \((ContinuousClock.now - began).components.seconds) s")
        #expect(result.kills >= Self.rounds && result.checked == result.kills)
        // Guards against a vacuous pass: commits of every kind, and history actually deleted.
        #expect(result.oracle.objectCommits >= Self.rounds * 10, "only \(result.oracle.objectCommits) object commits acknowledged")
        #expect(result.oracle.maintenance["delete-history", default: 0] > 0 && result.oracle.compactions > 0,
                "maintenance acknowledged: \(result.oracle.maintenance)")
        #expect(result.horizon > 1, "no history was ever deleted")
    }

    /// The oracle is no rubber stamp: it accepts a store the worker's operations wrote,
    /// and refuses it with an acknowledged save's entry gone, with an entry at a
    /// maintenance commit's sequence, and with an entry's changes altered.
    @Test func oracleRejectsMissingStrayAndWrongEntries() throws {
        let directory = try TemporaryDirectory("history-oracle")
        defer { directory.remove() }
        let path = directory.appending("store")
        let store = try ObjectStore(at: path, model: HistoryCrashWorker.model(), options: HistoryCrashWorker.options(logger: .quiet))
        defer { try? store.close() }
        let journal = try HistoryJournal.Writer(path: HistoryJournal.path(store: path))
        try journal.append(.open(sequence: store.currentHistoryToken.sequence))
        var session = HistoryCrashWorker.Session(store: store, journal: journal, random: SeededRandom(seed: 11), prefix: "t")
        for round in 0..<6 {
            try session.save(large: round == 2)
            try session.batchInsert()
            try session.streamInsert(count: round == 1 ? 0 : nil)
            try session.batchDelete()
            if round == 3 { try session.deleteOldHistory() }
            if round == 4 { try session.compact(asObjectStore: false) }
        }
        var oracle = HistoryCrashOracle()
        let lines = try HistoryCrashRounds.completeLines(of: HistoryJournal.path(store: path), from: 0).lines
        #expect(oracle.read(lines) == [])
        // A handler insert of nothing was among them: it must leave no entry.
        #expect(oracle.maintenance["empty-insert", default: 0] >= 1)
        var accepted = oracle
        #expect(accepted.check(store) == [])

        // The entry of the last acknowledged save, deleted.
        let saved = try #require(oracle.entries.filter { $0.value.bySave }.keys.max())
        var batch = WriteBatch()
        batch.delete(HistoryLog.key(saved))
        try store.records.commit(batch)
        var missing = oracle
        #expect(missing.check(store).contains { $0.contains("\(saved)") })

        // Put back, with its changes rewritten; and an entry at a sequence that changed no object.
        var entry = HistoryEntry(timestamp: Date(), author: HistoryCrashWorker.author, contextName: HistoryCrashWorker.contextName)
        entry.changes = [.init(type: .insert, key: StoreSchema.key(tag: 1, serial: 999_999))]
        batch = WriteBatch()
        batch.put(HistoryLog.key(saved), value: entry.encoded())
        let stray = try store.records.commit(batch)
        batch = WriteBatch()
        batch.put(HistoryLog.key(stray), value: HistoryEntry(timestamp: Date()).encoded())
        try store.records.commit(batch)
        var wrong = oracle
        let problems = wrong.check(store)
        #expect(problems.contains { $0.contains("entry \(saved)") }, "\(problems)")
        #expect(problems.contains { $0.contains("\(stray)") && $0.contains("no object") }, "\(problems)")
    }
}

/// Kills the `history` worker over and over on one store and holds the store against
/// the journal after each kill (see `HistoryCrashTests`).
struct HistoryCrashRounds {
    var rounds: Int
    /// On a loaded machine the worker gets through fewer operations before each kill, and
    /// its compaction (every 20th operation of a run) may never be acknowledged: rounds go
    /// on, up to this many in all, until the work the test requires has been done.
    var maxRounds: Int { rounds * 3 }
    /// Kill once the worker has acknowledged this many operations since READY, then
    /// this many milliseconds more (so the kill lands anywhere in an operation):
    /// counting operations rather than time keeps each run's work the same on a loaded
    /// machine, where the worker gets through fewer of them per second.
    var killAfterOperations: ClosedRange<Int> = 6...40
    var killDelay: ClosedRange<Int> = 0...40
    /// Every `earlyKillEvery`th round kills 0–150 ms after launch instead (in open and recovery).
    var earlyKillEvery = 3

    struct Result: CustomStringConvertible {
        var kills = 0
        var checked = 0
        var horizon: UInt64 = 0
        var lastSequence: UInt64 = 0
        var oracle = HistoryCrashOracle()

        /// Whether the rounds did the work that makes a pass mean something: object
        /// commits, history deleted, compactions.
        func coversTheWork(rounds: Int) -> Bool {
            oracle.objectCommits >= rounds * 10 && oracle.maintenance["delete-history", default: 0] > 0
                && oracle.compactions > 0 && horizon > 1
        }

        var description: String {
            "kills \(kills), checked \(checked); \(oracle.objectCommits) object commits and \(oracle.maintenance) acknowledged, "
                + "\(oracle.landedInFlight) interrupted operations landed, \(oracle.entries.count) commits with entries, "
                + "horizon \(horizon), last sequence \(lastSequence), \(oracle.items.count) items in the end"
        }
    }

    func run() throws -> Result {
        let directory = try TemporaryDirectory("crash-history")
        defer { directory.remove() }
        let storePath = directory.appending("store.strata")
        let journalPath = HistoryJournal.path(store: storePath)
        var random = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 1...UInt64(Int64.max), using: &random)
        var result = Result()
        var read = 0

        var round = 0
        while round < rounds || (round < maxRounds && !result.coversTheWork(rounds: rounds)) {
            round += 1
            var context = "history round \(round) (of at least \(rounds)), seed \(seed), store \(storePath)"
            let worker = try MigrationCrashProcess(command: "history", store: storePath, seed: seed)
            let delay: Int
            if round % earlyKillEvery == 0 {
                delay = Int.random(in: 0...150, using: &random)
            } else {
                guard ObjectWriteCrashRounds.waitForReady(worker) else {
                    let outcome = worker.killAndCollect()
                    Issue.record("worker never became ready (\(outcome.termination)); stderr: \(outcome.stderr.suffix(2_000)) — \(context)")
                    return result
                }
                let operations = Int.random(in: killAfterOperations, using: &random)
                guard Self.wait(for: worker, toAcknowledge: operations) else {
                    let outcome = worker.killAndCollect()
                    Issue.record("worker did not get through \(operations) operations (\(outcome.termination)); stderr: \(outcome.stderr.suffix(2_000)) — \(context)")
                    return result
                }
                delay = Int.random(in: killDelay, using: &random)
            }
            usleep(UInt32(delay * 1_000))
            let outcome = worker.killAndCollect()
            context += ", killed \(delay) ms after \(round % earlyKillEvery == 0 ? "launch" : "its last awaited operation"), \(outcome.lines.filter { $0.hasPrefix("ACK") }.count) operations acknowledged"
            guard outcome.diedOfSIGKILL else {
                Issue.record("worker ended by itself (\(outcome.termination)) before the kill; stderr: \(outcome.stderr.suffix(2_000)) — \(context)")
                return result
            }
            result.kills += 1

            let journal = try Self.completeLines(of: journalPath, from: read)
            read = journal.end
            var problems = result.oracle.read(journal.lines)
            let store: ObjectStore
            do {
                store = try ObjectStore(at: storePath, model: HistoryCrashWorker.model(), options: HistoryCrashWorker.options(logger: .quiet))
            } catch {
                Issue.record("store does not open after the kill: \(error) — \(context)")
                return result
            }
            defer { try? store.close() }
            if problems.isEmpty { problems = result.oracle.check(store) }
            guard problems.isEmpty else {
                Issue.record("store after the kill:\n\(problems.prefix(20).joined(separator: "\n")) — \(context)")
                return result
            }
            result.checked += 1
            result.horizon = try store.historyHorizon().map { $0.sequence + 1 } ?? 0
            result.lastSequence = store.currentHistoryToken.sequence
            try store.close()
        }
        return result
    }

    /// Waits until the worker has printed `count` `ACK` lines; false when it ends
    /// before, or takes a minute.
    static func wait(for worker: MigrationCrashProcess, toAcknowledge count: Int) -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let finished = worker.stdout.finished
            if worker.stdout.lines.lazy.filter({ $0.hasPrefix("ACK") }).count >= count { return true }
            if finished { return false }
            usleep(1_000)
        }
        return false
    }

    /// The journal's complete lines from byte `offset` on, and where they end; a last
    /// line the kill cut short is removed from the file, so that the next run's lines
    /// start on a line of their own.
    static func completeLines(of path: String, from offset: Int) throws -> (lines: [String], end: Int) {
        guard FileManager.default.fileExists(atPath: path) else { return ([], offset) }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let end = (bytes.lastIndex(of: UInt8(ascii: "\n")) ?? -1) + 1
        if end < bytes.count {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.truncate(atOffset: UInt64(end))
            try handle.close()
        }
        guard end > offset else { return ([], max(offset, end)) }
        let text = String(decoding: bytes[offset..<end], as: UTF8.self)
        return (text.split(separator: "\n").map(String.init), end)
    }
}

/// What the journal says the store holds and which sequences carry an entry, built up
/// round after round; `check` holds a reopened store against it.
struct HistoryCrashOracle {
    struct Item: Equatable, CustomStringConvertible {
        var name: String
        var note: String?
        var value: Int
        var description: String { "\(name)/\(note ?? "-")/\(value)" }
    }

    /// The entry an object-changing commit must have.
    struct Expected {
        /// A context save (its author and context named), or a batch operation (neither).
        var bySave: Bool
        var changes: [HistoryJournal.Change]
    }

    /// The objects, by key.
    var items: [UInt64: Item] = [:]
    /// The objects right after each object-changing commit, by its sequence (from the
    /// horizon on; 0: before the first). A token reads as of the greatest at or below it.
    var states: [UInt64: [UInt64: Item]] = [0: [:]]
    /// The object-changing commits, by sequence: exactly these have entries.
    var entries: [UInt64: Expected] = [:]
    /// Every sequence up to here is accounted for: an object-changing commit is in
    /// `entries`, any other changed nothing.
    var known: UInt64 = 0
    /// The operation begun and not (yet) acknowledged.
    var pending: HistoryJournal.Operation?
    var objectCommits = 0
    var maintenance: [String: Int] = [:]
    var landedInFlight = 0

    var compactions: Int { maintenance["compact", default: 0] + maintenance["compact-engine", default: 0] }

    /// Takes in a run's journal lines; what in them no worker could have written.
    mutating func read(_ lines: [String]) -> [String] {
        var problems: [String] = []
        for text in lines {
            guard let line = HistoryJournal.decode(text) else {
                problems.append("journal line \(text.prefix(120)) does not parse")
                continue
            }
            switch line {
            case .open(let sequence):
                if pending != nil { problems.append("a run opened the store with an operation of the last one unresolved") }
                if sequence < known { problems.append("the store opened at sequence \(sequence), before \(known), which was acknowledged") }
                known = max(known, sequence)
            case .begin(let operation):
                if pending != nil { problems.append("an operation began before the last one ended") }
                pending = operation
            case let .end(first, last, inserted):
                guard let operation = pending else {
                    problems.append("END \(first) \(last) without BEGIN")
                    continue
                }
                pending = nil
                if first != known + 1 || last + 1 < first {
                    problems.append("an operation committed \(first)...\(last) after sequence \(known)")
                }
                known = max(known, last)
                guard let expected = Self.expected(operation, inserted: inserted) else {
                    if case .maintenance(let what) = operation { maintenance[what, default: 0] += 1 }
                    continue
                }
                guard first == last, expected.changes.count == Self.changeCount(operation) else {
                    problems.append("\(HistoryJournal.encode(.begin(operation)).prefix(80)) committed \(first)...\(last) with \(inserted.count) keys")
                    continue
                }
                objectCommits += 1
                entries[first] = expected
                problems += apply(expected.changes)
                states[first] = items
            }
        }
        return problems
    }

    /// The entry an operation's commit must have; nil for maintenance.
    static func expected(_ operation: HistoryJournal.Operation, inserted: [UInt64]) -> Expected? {
        switch operation {
        case .save(let changes): Expected(bySave: true, changes: changes)
        case .delete(let changes): Expected(bySave: false, changes: changes)
        case .insert(let objects): Expected(bySave: false, changes: zip(objects, inserted).map { .insert(key: $1, name: $0.name, value: $0.value) })
        case .maintenance: nil
        }
    }

    static func changeCount(_ operation: HistoryJournal.Operation) -> Int {
        switch operation {
        case .save(let changes), .delete(let changes): changes.count
        case .insert(let objects): objects.count
        case .maintenance: 0
        }
    }

    mutating func apply(_ changes: [HistoryJournal.Change]) -> [String] {
        var problems: [String] = []
        for change in changes {
            switch change {
            case let .insert(key, name, value):
                if items[key] != nil { problems.append("key \(String(key, radix: 16)) inserted twice") }
                items[key] = Item(name: name, value: value)
            case let .update(key, _, note, value):
                if items[key] == nil { problems.append("key \(String(key, radix: 16)) updated, but not in the store") }
                items[key]?.note = note
                items[key]?.value = value
            case let .delete(key, _):
                if items.removeValue(forKey: key) == nil { problems.append("key \(String(key, radix: 16)) deleted, but not in the store") }
            }
        }
        return problems
    }

    /// Holds a store reopened after a kill against the journal read so far, settling
    /// the operation the kill interrupted: every way the store's history is not one
    /// entry per object-changing commit.
    mutating func check(_ store: ObjectStore) -> [String] {
        var problems: [String] = []
        do {
            let last = store.currentHistoryToken.sequence
            if last < known { problems.append("the store's last sequence is \(last), but \(known) was acknowledged") }
            var stored: [UInt64: Item] = [:]
            let reader = store.newContext()
            for object in try reader.fetch(FetchRequest(entityName: "Item")) {
                stored[object.objectID.key.rawValue] = Item(name: try object.string("name") ?? "", note: try object.string("note"), value: try object.int("value") ?? -1)
            }
            let raw = try store.records.keys(in: HistoryLog.entries).map(HistoryLog.sequence(of:))

            // The interrupted operation: whole or not at all, and its entry with it.
            if let operation = pending {
                pending = nil
                var landed: [Bool] = []
                var changes: [HistoryJournal.Change] = []
                switch operation {
                case .save(let list), .delete(let list):
                    changes = list
                    for change in list {
                        switch change {
                        case let .insert(key, name, _): landed.append(stored[key]?.name == name)
                        case let .update(key, _, note, _): landed.append(stored[key]?.note == note)
                        case let .delete(key, _): landed.append(stored[key] == nil)
                        }
                    }
                case .insert(let objects):
                    let byName = Dictionary(stored.map { ($0.value.name, $0.key) }, uniquingKeysWith: { a, _ in a })
                    for object in objects {
                        landed.append(byName[object.name] != nil)
                        if let key = byName[object.name] { changes.append(.insert(key: key, name: object.name, value: object.value)) }
                    }
                case .maintenance:
                    break
                }
                let gap = raw.filter { $0 > known && $0 <= last }
                if landed.contains(true) && landed.contains(false) {
                    problems.append("the interrupted \(HistoryJournal.encode(.begin(operation)).prefix(80)) landed in part: \(landed)")
                } else if landed.first == true {
                    landedInFlight += 1
                    if gap.count != 1 {
                        problems.append("the interrupted operation landed, with \(gap.count) entries after sequence \(known): \(gap)")
                    } else {
                        var expected = Self.expected(operation, inserted: [])!
                        expected.changes = changes
                        entries[gap[0]] = expected
                        problems += apply(changes)
                        states[gap[0]] = items
                    }
                }
            }
            known = max(known, last)

            // No entry without its commit.
            for sequence in raw where entries[sequence] == nil {
                problems.append("sequence \(sequence) has an entry, but changed no object (the last commit is \(last))")
            }
            guard let horizon = try store.historyHorizon() else { return problems + ["the store does not track history"] }
            let history = try store.fetchHistory()
            let sequences = history.map(\.token.sequence)
            if zip(sequences, sequences.dropFirst()).contains(where: { $0 >= $1 }) {
                problems.append("fetchHistory is not in strictly increasing order: \(sequences.prefix(40))")
            }
            if try store.fetchHistory(after: horizon) != history {
                problems.append("fetchHistory after the horizon \(horizon.sequence) differs from fetchHistory()")
            }
            // No commit without its entry.
            let required = entries.keys.filter { $0 > horizon.sequence }.sorted()
            if sequences != required {
                let missing = Set(required).subtracting(sequences).sorted(), extra = Set(sequences).subtracting(required).sorted()
                problems.append("history above horizon \(horizon.sequence): missing the entries of \(missing.prefix(20)), extra \(extra.prefix(20))")
            }
            for transaction in history {
                guard let expected = entries[transaction.token.sequence] else { continue }
                if let mismatch = Self.mismatch(transaction, expected) {
                    problems.append("entry \(transaction.token.sequence): \(mismatch)")
                }
            }
            problems += store.historyProblems(limit: 10).map { "history problem: \($0)" }
            let report = try store.verify()
            if !report.isSound { problems.append("verify: \(report)") }
            if stored != items {
                let differing = Set(stored.keys).union(items.keys).filter { stored[$0] != items[$0] }.sorted().prefix(10)
                problems.append("objects differ from the journal's: " + differing.map {
                    "\(String($0, radix: 16)): store \(stored[$0].map(\.description) ?? "none"), journal \(items[$0].map(\.description) ?? "none")"
                }.joined(separator: "; "))
            }
            problems += checkPast(store, horizon: horizon.sequence, last: last)
        } catch {
            problems.append("reading the store failed: \(error)")
        }
        return problems
    }

    /// The store as of up to 16 tokens from the horizon to the last sequence (the first,
    /// the last and ones between), against the journal's states; states older than the
    /// horizon are dropped, but the one a token at the horizon reads.
    mutating func checkPast(_ store: ObjectStore, horizon: UInt64, last: UInt64) -> [String] {
        let base = states.keys.filter { $0 <= horizon }.max() ?? 0
        states = states.filter { $0.key >= base }
        let known = states.keys.sorted()
        guard last >= horizon else { return [] }
        let span = last - horizon
        var tokens = Set([horizon, last])
        for i in 1..<15 { tokens.insert(horizon + span * UInt64(i) / 15) }
        var problems: [String] = []
        for sequence in tokens.sorted() {
            guard let at = known.last(where: { $0 <= sequence }), let expected = states[at] else { continue }
            do {
                let then = try store.snapshot(at: HistoryToken(sequence: sequence, storeIdentifier: store.identifier))
                defer { try? then.close() }
                let reader = then.newContext()
                var found: [UInt64: Item] = [:]
                for object in try reader.fetch(FetchRequest(entityName: "Item")) {
                    found[object.objectID.key.rawValue] = Item(name: try object.string("name") ?? "", note: try object.string("note"), value: try object.int("value") ?? -1)
                }
                if found != expected {
                    let differing = Set(found.keys).union(expected.keys).filter { found[$0] != expected[$0] }.count
                    problems.append("as of \(sequence) (horizon \(horizon), last \(last)): \(differing) objects differ from the journal's")
                }
            } catch {
                problems.append("reading as of \(sequence) (horizon \(horizon), last \(last)) failed: \(error)")
            }
        }
        return problems
    }

    /// How `transaction` differs from the entry its commit must have; nil when it does not.
    static func mismatch(_ transaction: HistoryTransaction, _ expected: Expected) -> String? {
        let author = expected.bySave ? HistoryCrashWorker.author : nil
        let contextName = expected.bySave ? HistoryCrashWorker.contextName : nil
        if transaction.author != author || transaction.contextName != contextName {
            return "author \(transaction.author ?? "nil") and context \(transaction.contextName ?? "nil"), expected \(author ?? "nil") and \(contextName ?? "nil")"
        }
        let changes = expected.changes.sorted { $0.key < $1.key }
        guard transaction.changes.count == changes.count else {
            return "\(transaction.changes.count) changes, expected \(changes.count)"
        }
        for (found, change) in zip(transaction.changes, changes) {
            let id = found.changedObjectID
            guard id.key.rawValue == change.key, id.entityName == "Item" else {
                return "a change of \(id) where \(String(change.key, radix: 16)) was expected"
            }
            switch change {
            case .insert:
                if found.changeType != .insert || found.tombstone != nil { return "\(id) is \(found.changeType), not an insert" }
            case .update(_, let attributes, _, _):
                if found.changeType != .update || Set(found.updatedAttributes) != Set(attributes) {
                    return "\(id) is \(found.changeType) of \(found.updatedAttributes), not an update of \(attributes)"
                }
            case .delete(_, let name):
                if found.changeType != .delete || found.tombstone != ["name": .string(name)] {
                    return "\(id) is \(found.changeType) with tombstone \(String(describing: found.tombstone)), not a delete of \(name)"
                }
            }
        }
        return nil
    }
}
