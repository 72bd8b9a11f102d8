import Foundation
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataCrashWorker

/// Group commit through the object layer under real crashes: the worker runs 16 to 64
/// `ObjectStore.write` tasks at once (one per lane; a seed picks how many), each
/// inserting its lane's numbered Items in order and setting its Lane's count in the
/// same save, and the test SIGKILLs it at random moments. After each kill, for each
/// lane: its Items are exactly 1…P with their bytes (no hole), P reaches the lane's last
/// acknowledged write A and P ≤ A + 1 (only the write in flight may have landed), the
/// Lane's count is P (a save lands whole), every acknowledged Item is found by the id the
/// worker printed, and the store verifies.
@Suite(.serialized) struct ObjectWriteCrashTests {
    static let rounds = 8

    @Test func killedConcurrentWritesKeepEveryAcknowledgedSave() throws {
        let began = ContinuousClock.now
        let result = try ObjectWriteCrashRounds(rounds: Self.rounds).run()
        print("real-crash objects mode, \(Self.rounds) rounds: \(result), \((ContinuousClock.now - began).components.seconds) s")
        #expect(result.kills == Self.rounds && result.holes == 0 && result.mismatches == 0 && result.verified == Self.rounds)
        // Guards against a vacuous pass: the lanes must have written, and together.
        #expect(result.acknowledged >= Self.rounds * 8, "only \(result.acknowledged) writes acknowledged")
        #expect(result.lanesAcknowledging >= result.lanes / 2, "only \(result.lanesAcknowledging) of \(result.lanes) lanes had a write acknowledged")
    }

    /// The oracle is no rubber stamp: it accepts a store written by the workload and
    /// refuses it for another seed, with a lane's Item missing, or with a Lane count
    /// that disagrees with its Items.
    @Test func objectOracleRejectsHolesTornSavesAndOtherBytes() throws {
        let directory = try TemporaryDirectory("objects-oracle")
        defer { directory.remove() }
        let seed: UInt64 = 3 // 19 lanes
        let lanes = ConcurrentWorkload.lanes(seed: seed)
        let store = try ObjectStore(at: directory.path, model: ConcurrentWorkload.model(), options: ConcurrentWorkload.objectOptions(logger: .quiet))
        defer { try? store.close() }
        var laneIDs = [ObjectID?](repeating: nil, count: lanes)
        for index in 1...4 {
            for lane in 0..<lanes {
                let context = store.newContext()
                laneIDs[lane] = try ObjectCrashWorker.insert(lane: lane, index: index, laneID: laneIDs[lane], seed: seed, into: context).1
                try context.save()
            }
        }
        var found = ObjectWriteCrashRounds.check(store, seed: seed)
        #expect(found.problems == [])
        #expect(found.present == Array(repeating: 4, count: lanes))
        #expect(ObjectWriteCrashRounds.check(store, seed: seed + 1).problems != [])
        // Lane 2's count moved on without its Item.
        let context = store.newContext()
        try context.existingObject(with: #require(laneIDs[2])).setValue(5, forKey: "count")
        try context.save()
        found = ObjectWriteCrashRounds.check(store, seed: seed)
        #expect(found.problems.contains { $0.contains("lane 2") }, "\(found.problems)")
        // A hole: lane 7's Item 2 deleted.
        let item = try context.fetch(FetchRequest(entityName: "Item")).first { try $0.int("lane") == 7 && $0.int("index") == 2 }
        try context.delete(#require(item))
        try context.save()
        found = ObjectWriteCrashRounds.check(store, seed: seed)
        #expect(found.problems.contains { $0.contains("lane 7") }, "\(found.problems)")
    }
}

/// Kills the `objects` worker over and over on one store and checks the per-lane prefix
/// oracle after each kill (see `ObjectWriteCrashTests`).
struct ObjectWriteCrashRounds {
    var rounds: Int
    /// Kill this long after READY: writes are in full flow within a few milliseconds.
    var killDelay: ClosedRange<Int> = 20...900
    /// Every `earlyKillEvery`th round kills 0–150 ms after launch instead (in open and recovery).
    var earlyKillEvery = 5

    struct Result: CustomStringConvertible {
        var lanes = 0
        var kills = 0
        var opened = 0
        var verified = 0
        var holes = 0
        var mismatches = 0
        var acknowledged = 0
        var inFlightLanded = 0
        var lanesAcknowledging = 0
        var items = 0

        var description: String {
            "\(lanes) lanes: kills \(kills), verified \(verified), holes \(holes), mismatches \(mismatches); \(acknowledged) writes acknowledged by \(lanesAcknowledging) lanes, \(inFlightLanded) in-flight writes landed, \(items) items in the end"
        }
    }

    func run() throws -> Result {
        let directory = try TemporaryDirectory("crash-objects")
        defer { directory.remove() }
        let storePath = directory.appending("store.strata")
        var random = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 1...UInt64(Int64.max), using: &random)
        let lanes = ConcurrentWorkload.lanes(seed: seed)
        var present = [Int](repeating: 0, count: lanes)
        var acknowledging = Set<Int>()
        var result = Result(lanes: lanes)

        for round in 1...rounds {
            var context = "objects round \(round)/\(rounds), seed \(seed) (\(lanes) lanes), store \(storePath)"
            let worker = try MigrationCrashProcess(command: "objects", store: storePath, seed: seed)
            let delay: Int
            if round % earlyKillEvery == 0 {
                delay = Int.random(in: 0...150, using: &random)
            } else {
                guard Self.waitForReady(worker) else {
                    let outcome = worker.killAndCollect()
                    Issue.record("worker never became ready (\(outcome.termination)); stderr: \(outcome.stderr.suffix(2_000)) — \(context)")
                    return result
                }
                delay = Int.random(in: killDelay, using: &random)
            }
            usleep(UInt32(delay * 1_000))
            let outcome = worker.killAndCollect()
            context += ", killed after \(delay) ms"
            guard outcome.diedOfSIGKILL else {
                Issue.record("worker ended by itself (\(outcome.termination)) before the kill; stderr: \(outcome.stderr.suffix(2_000)) — \(context)")
                return result
            }
            result.kills += 1
            guard let acknowledged = Self.acknowledgements(outcome.lines, present: present, context: context) else { return result }
            var last = present
            for ack in acknowledged {
                last[ack.lane] = ack.index
                acknowledging.insert(ack.lane)
            }
            result.acknowledged += acknowledged.count

            let store: ObjectStore
            do {
                store = try ObjectStore(at: storePath, model: ConcurrentWorkload.model(), options: ConcurrentWorkload.objectOptions(logger: .quiet))
            } catch {
                Issue.record("store does not open after the kill: \(error) — \(context)")
                return result
            }
            defer { try? store.close() }
            result.opened += 1
            var found = Self.check(store, seed: seed)
            // Every acknowledged write is found by the id the worker printed.
            let lookup = store.newContext()
            for ack in acknowledged where found.problems.count < 20 {
                guard let id = store.objectID(entityName: "Item", serial: ack.serial),
                      let item = try? lookup.existingObject(with: id) else {
                    found.problems.append("lane \(ack.lane): acknowledged item \(ack.index) (serial \(ack.serial)) is not found by its id")
                    continue
                }
                if (try? item.int("lane")) != ack.lane || (try? item.int("index")) != ack.index {
                    found.problems.append("lane \(ack.lane): serial \(ack.serial) holds another item than the acknowledged \(ack.index)")
                }
            }
            guard found.problems.isEmpty else {
                result.mismatches += 1
                Issue.record("store after the kill:\n\(found.problems.joined(separator: "\n")) — \(context)")
                return result
            }
            for lane in 0..<lanes {
                if found.present[lane] < last[lane] {
                    result.holes += 1
                    Issue.record("lane \(lane): the store holds items 1…\(found.present[lane]) but 1…\(last[lane]) were acknowledged — \(context)")
                    return result
                }
                if found.present[lane] > last[lane] + 1 {
                    result.mismatches += 1
                    Issue.record("lane \(lane): the store holds items 1…\(found.present[lane]), more than the write in flight after \(last[lane]) acknowledged — \(context)")
                    return result
                }
                result.inFlightLanded += found.present[lane] > last[lane] ? 1 : 0
            }
            let report = try store.verify()
            guard report.isSound else {
                Issue.record("verify after the kill: \(report) — \(context)")
                return result
            }
            result.verified += 1
            try store.close()
            present = found.present
        }
        result.lanesAcknowledging = acknowledging.count
        result.items = present.reduce(0, +)
        return result
    }

    /// Waits up to 30 s for the worker's `READY` line (its store open); false when it
    /// never comes or the worker ended.
    static func waitForReady(_ worker: MigrationCrashProcess) -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let finished = worker.stdout.finished
            if worker.stdout.lines.contains(where: { $0.hasPrefix("READY") }) { return true }
            if finished { return false }
            usleep(1_000)
        }
        return false
    }

    /// An acknowledged write: the lane, the item's number and its object's serial.
    struct Ack {
        var lane: Int
        var index: Int
        var serial: UInt64
    }

    /// The run's `ACK lane index serial` lines, checked: after a `READY` naming each
    /// lane's next item as the store held it, each lane's acknowledgements consecutive
    /// from there. Nil (an issue recorded) otherwise.
    static func acknowledgements(_ lines: [String], present: [Int], context: String) -> [Ack]? {
        var next: [Int]?
        var acknowledged: [Ack] = []
        for line in lines {
            let parts = line.split(separator: " ")
            if parts.first == "READY", next == nil {
                let starts = parts.dropFirst().compactMap { Int($0) }
                guard starts == present.map({ $0 + 1 }) else {
                    Issue.record("worker started at \(starts), the store held \(present) — \(context)")
                    return nil
                }
                next = starts
            } else if parts.count == 4, parts[0] == "ACK", next != nil, let lane = Int(parts[1]), let index = Int(parts[2]),
                      let serial = UInt64(parts[3]), lane >= 0, lane < present.count {
                guard index == next?[lane] else {
                    Issue.record("lane \(lane) acknowledged item \(index), expected \(next?[lane] ?? 0) — \(context)")
                    return nil
                }
                next?[lane] += 1
                acknowledged.append(Ack(lane: lane, index: index, serial: serial))
            } else {
                Issue.record("unexpected worker output \(line) — \(context)")
                return nil
            }
        }
        return acknowledged
    }

    /// Reads every Item and Lane: each lane's items present (`present[l]` = P when they
    /// are exactly 1…P), and every way the store is not that state of the seed's workload.
    static func check(_ store: ObjectStore, seed: UInt64, limit: Int = 20) -> (present: [Int], problems: [String]) {
        let lanes = ConcurrentWorkload.lanes(seed: seed)
        var problems: [String] = []
        func note(_ problem: String) { if problems.count < limit { problems.append(problem) } }
        var indices = [[Int]](repeating: [], count: lanes)
        var counts = [Int?](repeating: nil, count: lanes)
        let context = store.newContext()
        do {
            for item in try context.fetch(FetchRequest(entityName: "Item")) {
                guard let lane = try item.int("lane"), lane >= 0, lane < lanes, let index = try item.int("index") else {
                    note("item \(item.objectID) belongs to no lane")
                    continue
                }
                indices[lane].append(index)
                if try item.string("name") != ConcurrentWorkload.itemName(lane: lane, index: index, seed: seed) {
                    note("lane \(lane): item \(index)'s name is \(try item.string("name") ?? "nil")")
                }
                let payload = try item.data("payload")
                if payload != ConcurrentWorkload.payload(lane: lane, index: index, seed: seed) {
                    note("lane \(lane): item \(index)'s payload differs (\(payload.map { "\($0.count) bytes" } ?? "nil"))")
                }
            }
            for laneObject in try context.fetch(FetchRequest(entityName: "Lane")) {
                guard let number = try laneObject.int("number"), number >= 0, number < lanes else {
                    note("Lane \(laneObject.objectID) is no lane of the workload")
                    continue
                }
                if counts[number] != nil { note("lane \(number): two Lane objects") }
                counts[number] = try laneObject.int("count")
            }
        } catch {
            return (Array(repeating: 0, count: lanes), ["fetching failed: \(error)"])
        }
        var present = [Int](repeating: 0, count: lanes)
        for lane in 0..<lanes {
            let sorted = indices[lane].sorted()
            present[lane] = sorted.count
            if sorted != Array(0..<sorted.count).map({ $0 + 1 }) {
                note("lane \(lane): items present are no prefix: \(sorted.prefix(12))")
            }
            // The Lane comes with the lane's first item and counts its items: a save lands whole.
            if counts[lane] != (sorted.isEmpty ? nil : sorted.count) {
                note("lane \(lane): Lane count \(counts[lane].map(String.init) ?? "absent"), but \(sorted.count) items are present")
            }
        }
        return (present, problems)
    }
}
