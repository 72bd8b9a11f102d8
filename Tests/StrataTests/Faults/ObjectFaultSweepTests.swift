import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// The engine's fault sweep (StrataLogTests/Faults) over the object layer's own
/// operations: a context save with relationships and external binaries, a batch
/// insert, a compaction that collects blob files, and a two-stage migration with its
/// staging stores and swap. The Nth write, fsync, rename, directory fsync or create
/// fails with EIO or ENOSPC, then the power goes: the operation threw, and the store
/// reopens holding exactly what was committed before it — or, where the failure came
/// after the operation's commit point, exactly what it committed — and `verify` is sound.
///
/// Occurrences are sampled to at most `samples` per operation kind (evenly spaced,
/// first and last included), so the sweep stays a few seconds in CI.
@Suite struct ObjectFaultSweepTests {
    static let root = "/store"
    static let samples = 12
    static let operations: [Fault.Operation] = [.write, .sync, .rename, .syncDirectory, .create]

    /// A step of the sweep: what to build before the faults, and the operation under them.
    struct Scenario: Sendable, CustomStringConvertible {
        var description: String
        var models: @Sendable () throws -> (before: ObjectModel, after: ObjectModel)
        var setup: @Sendable (ObjectStore) throws -> Void
        var operation: @Sendable (_ memory: any FileSystem, _ store: ObjectStore) throws -> ObjectStore?
        var migrationOptions: @Sendable (ObjectModel, ObjectModel) throws -> StoreMigration = { _, _ in .none }
    }

    static func options(_ fileSystem: any FileSystem) -> StoreOptions {
        var options = StoreOptions()
        options.fileSystem = fileSystem
        options.logger = .quiet
        options.externalStorageThreshold = 256
        options.log.segmentSizeLimit = 2048
        options.log.blobFileSizeLimit = 4096
        options.log.compactionBatchBytes = 2048
        options.migrationBatchSize = 4
        return options
    }

    // MARK: The sweep

    @Test(arguments: scenarios)
    func failingAnOperationKeepsWhatWasCommitted(scenario: Scenario) throws {
        let (modelBefore, modelAfter) = try scenario.models()
        // A clean run: what the store holds before and after, and how often each operation happens.
        let clean = try Self.run(scenario, before: modelBefore, after: modelAfter, fault: nil)
        #expect(clean.threw == nil, "\(scenario): the clean run threw \(String(describing: clean.threw))")
        #expect(clean.before != clean.after || scenario.description.hasPrefix("compaction"), "\(scenario): the operation changed nothing")
        var fired = 0
        for operation in Self.operations {
            let total = clean.counts[operation] ?? 0
            for occurrence in Self.sample(total) {
                for errno: Int32 in [5, 28] { // EIO, ENOSPC
                    let fault = Fault.fail(operation, errno: errno, on: .nth(occurrence))
                    let context = "\(scenario): \(operation) #\(occurrence) of \(total), errno \(errno)"
                    let run: Run
                    do {
                        run = try Self.run(scenario, before: modelBefore, after: modelAfter, fault: fault)
                    } catch {
                        Issue.record("\(context): after power loss the store does not reopen: \(error)")
                        continue
                    }
                    if run.fired { fired += 1 }
                    // Some failures may be shrugged off with a warning: a directory fsync
                    // after the commit point; the writing of a hint file (FORMAT.md §7: a
                    // segment without a sound hint is scanned at open); and, once the last
                    // stage is swapped in, the closing of an earlier stage's staging store,
                    // which is discarded whole.
                    let optional = operation == .syncDirectory || run.failedPaths.allSatisfy { $0.contains("/index/") }
                        || (run.reopened == clean.after && run.failedPaths.allSatisfy { $0.hasPrefix(Self.root + "/staging/") })
                    #expect(run.threw != nil || !run.fired || optional, "\(context): the failure of \(run.failedPaths) was swallowed")
                    #expect(run.reopened == clean.before || run.reopened == clean.after,
                            "\(context): after power loss the store holds neither the state before nor the one after")
                    #expect(run.sound, "\(context): verify is not sound after reopening")
                }
            }
        }
        #expect(fired > 0, "\(scenario): no fault fired")
    }

    /// At most `samples` occurrences of `1...total`, evenly spaced, first and last included.
    static func sample(_ total: Int) -> [Int] {
        guard total > samples else { return Array(stride(from: 1, through: total, by: 1)) }
        return Array(Set((0..<samples).map { 1 + $0 * (total - 1) / (samples - 1) })).sorted()
    }

    struct Run {
        var before: [String]
        var after: [String]
        var reopened: [String]
        var counts: [Fault.Operation: Int]
        var threw: (any Error)?
        var fired: Bool
        var failedPaths: [String]
        var sound: Bool
    }

    /// Builds the store, runs the operation (under `fault` when given), loses power,
    /// and reopens: the before snapshot, the reopened one, and the after one (of this
    /// run when it succeeded, else empty).
    static func run(_ scenario: Scenario, before modelBefore: ObjectModel, after modelAfter: ObjectModel, fault: Fault?) throws -> Run {
        let memory = InMemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        let store = try ObjectStore(at: root, model: modelBefore, options: options(fs))
        try scenario.setup(store)
        let before = try snapshot(store)
        fs.resetCounts()
        fs.isRecording = true
        let id = fault.map { fs.inject($0) }
        var threw: (any Error)?
        var result: ObjectStore?
        do {
            result = try scenario.operation(fs, store)
        } catch {
            threw = error
        }
        let counts = fs.counts
        let fired = id.map { fs.timesFired($0) > 0 } ?? false
        let failedPaths = fs.events.filter { $0.injectedErrno != nil }.flatMap(\.paths)
        fs.isRecording = false
        var after: [String] = []
        if threw == nil, let current = result ?? Optional(store) { after = try snapshot(current) }
        try? result?.close()
        try? store.close()
        fs.clearFaults()
        memory.crash()
        // Reopen at the old model; a store already migrated opens at the new one.
        var reopenedStore: ObjectStore
        do {
            reopenedStore = try ObjectStore(at: root, model: modelBefore, options: options(memory))
        } catch let error as StrataError where error.code == .incompatibleModel {
            reopenedStore = try ObjectStore(at: root, model: modelAfter, options: options(memory))
        }
        defer { try? reopenedStore.close() }
        let reopened = try snapshot(reopenedStore)
        let sound = try reopenedStore.verify().isSound
        // The reopened store takes a save again.
        let context = reopenedStore.newContext()
        let department = try context.insert("Department")
        try department.setValue("after the fault", forKey: "name")
        try context.save()
        return Run(before: before, after: after, reopened: reopened, counts: counts, threw: threw, fired: fired, failedPaths: failedPaths, sound: sound)
    }

    /// Every object of every entity, as sorted lines: attributes (binaries by length
    /// and checksum) and relationships (by the destination's name).
    static func snapshot(_ store: ObjectStore) throws -> [String] {
        let context = store.newContext()
        var lines: [String] = []
        for entity in store.model.entities where !entity.isAbstract {
            for object in try context.fetch(FetchRequest(entityName: entity.name)) where object.entity.name == entity.name {
                var fields: [String] = [entity.name]
                for attribute in entity.attributes.sorted(by: { $0.name < $1.name }) {
                    let value = try object.value(forKey: attribute.name)
                    if case .binary(let data) = value {
                        fields.append("\(attribute.name)=\(data.count)b/\(data.reduce(UInt32(2166136261)) { ($0 ^ UInt32($1)) &* 16777619 })")
                    } else {
                        fields.append("\(attribute.name)=\(value)")
                    }
                }
                for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) {
                    let names = try (relationship.isToMany ? object.objects(relationship.name) : [object.object(relationship.name)].compactMap { $0 })
                        .map { (try? $0.string("name")) ?? nil ?? "?" }.sorted()
                    fields.append("\(relationship.name)->\(names.joined(separator: ","))")
                }
                lines.append(fields.joined(separator: " "))
            }
        }
        return lines.sorted()
    }
}
