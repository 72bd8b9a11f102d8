import Foundation
@testable import Strata
import StrataLog
import StrataTestSupport
import Testing

/// Group commit through the object layer when an fsync fails: 16 `ObjectStore.write`
/// calls in four waves of four at once, over a disk whose fsyncs take 2 ms (so a wave's
/// writes share them; each wave needs one at least, so the nth fsync for n ≤ 4 always
/// comes, however loaded the machine), and the nth fsync of a segment fails. Every write that fsync was to cover throws, and so does
/// every later one (the store turns read-only); after a power loss every write that
/// returned is there, and what is there is a prefix of the writes in the order they
/// were appended. A write that threw may still be there: an fsync makes durable what
/// was written before it ran, which can be more than the writes it was asked to cover.
@Suite struct GroupCommitFaultTests {
    static let writes = 16
    static let waves = 4

    /// The nth fsync for n = 1…4, in turn.
    @Test func aFailedFsyncFailsTheWritesItCoveredAndKeepsThoseThatReturned() async throws {
        for nth in 1 ... Self.waves {
            let fired = try await Self.round(failingFsync: nth)
            #expect(fired, "fsync \(nth) never came although \(Self.waves) waves each need one")
        }
    }

    /// One round; returns whether the nth fsync came (and failed).
    static func round(failingFsync nth: Int) async throws -> Bool {
        let memory = InMemoryFileSystem()
        let faults = FaultInjectingFileSystem(wrapping: SlowSyncFileSystem(wrapping: memory, delay: .milliseconds(2)))
        var options = StoreOptions()
        options.fileSystem = faults
        options.logger = .quiet
        let model = try ContextFixtures.company()
        let store = try ObjectStore(at: "/store", model: model, options: options)
        let before = try await store.write { try ContextFixtures.employee($0, "Before").objectID }
        let fault = faults.inject(.fail(.sync, errno: EIO, matching: "segments/", on: .nth(nth)))
        // The order the writer lane ran the closures in: the order of the appends.
        let appendOrder = Locked<[String]>([])
        var outcomes: [(Int, Result<ObjectID, any Error>)] = []
        for wave in 0 ..< Self.waves {
            // A wave starts once the last has returned: its writes need an fsync of their own.
            outcomes += await withTaskGroup(of: (Int, Result<ObjectID, any Error>).self) { group in
                for i in wave * Self.writes / Self.waves ..< (wave + 1) * Self.writes / Self.waves {
                    group.addTask {
                        do {
                            let id = try await store.write { context in
                                let id = try ContextFixtures.employee(context, "E\(i)").objectID
                                appendOrder.withLock { $0.append("E\(i)") }
                                return id
                            }
                            return (i, .success(id))
                        } catch {
                            return (i, .failure(error))
                        }
                    }
                }
                return await group.reduce(into: [(Int, Result<ObjectID, any Error>)]()) { $0.append($1) }
            }
        }
        var returned: [Int: ObjectID] = [:]
        var thrown: [Int] = []
        for (i, outcome) in outcomes {
            switch outcome {
            case .success(let id): returned[i] = id
            case .failure(let error):
                thrown.append(i)
                // The fsync's own `.io`, or `.readOnly` for a write that came after it.
                let code = (error as? StrataError)?.code
                #expect(code == .io || code == .readOnly, "fsync \(nth): write E\(i) threw \(error)")
            }
        }
        let fired = faults.timesFired(fault) == 1
        if fired {
            #expect(!thrown.isEmpty, "no write threw although fsync \(nth) failed")
            guard case .readOnly = store.health.state else {
                Issue.record("fsync \(nth): expected read-only after the failed fsync, got \(store.health)")
                return fired
            }
            await #expect { try await store.write { _ = try ContextFixtures.employee($0, "After") } } throws: { ($0 as? StrataError)?.code == .readOnly }
        }
        // The power fails now: the copy keeps what fsyncs made durable.
        let disk = memory.crashedCopy()
        try? await store.close()
        var reopenedOptions = StoreOptions()
        reopenedOptions.fileSystem = disk
        reopenedOptions.logger = .quiet
        let reopened = try ObjectStore(at: "/store", model: model, options: reopenedOptions)
        defer { try? reopened.close() }
        let context = reopened.newContext()
        #expect(try context.existingObject(with: before).string("name") == "Before")
        for (i, id) in returned {
            #expect(try context.existingObject(with: id).string("name") == "E\(i)", "fsync \(nth): write E\(i) returned but is lost")
        }
        let present = try Set(context.fetch(FetchRequest(entityName: "Employee")).map { try $0.string("name") ?? "" }).subtracting(["Before"])
        let order = appendOrder.withLock { $0 }
        #expect(present == Set(order.prefix(present.count)), "fsync \(nth): \(present.sorted()) present, not a prefix of the appends \(order)")
        #expect(try reopened.verify().isSound)
        let inDoubt = thrown.filter { present.contains("E\($0)") }.count
        print("group commit fault, fsync \(nth) \(fired ? "failed" : "never came"): \(returned.count) of \(Self.writes) writes returned, \(thrown.count) threw (\(inDoubt) of them durable all the same), \(present.count) present after the power loss")
        return fired
    }
}
