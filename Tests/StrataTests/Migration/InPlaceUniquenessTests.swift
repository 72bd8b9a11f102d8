import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// A new uniqueness rule — a unique attribute or a compound constraint — is
/// checked in place by a scan that writes nothing (an external merge sort of the rule's
/// terms outside the store); the stage fails naming the rule, the value and both
/// objects with the store byte-for-byte unchanged, or builds the rule's terms on the
/// records as they are and swaps the metadata. No staging store either way.
@Suite("Migration: uniqueness in place")
struct InPlaceUniquenessTests {
    static func accounts(_ version: String, unique: Bool = false, indexed: Bool = false,
                         compound: Bool = false, region: (indexed: Bool, unique: Bool, default: Value?)? = nil) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Account", uniquenessConstraints: compound ? [["first", "last"]] : []) {
                Attribute("email", .string, optional: true, indexed: indexed, unique: unique)
                Attribute("first", .string, optional: true)
                Attribute("last", .string, optional: true)
                if let region {
                    Attribute("region", .string, optional: true, default: region.default, indexed: region.indexed, unique: region.unique)
                }
            }
            Entity("Admin", parent: "Account") {
                Attribute("level", .int64, default: .int(0))
            }
        }
    }

    /// Opens through one inferred stage with a scratch budget small enough to spill
    /// several sorted runs for a few hundred objects.
    static func open(_ path: String, _ model: ObjectModel, migrate: Bool = true, progress: ProgressLog? = nil,
                     scratch: String? = nil) throws -> ObjectStore {
        var options = StoreOptions()
        if migrate { options.migration = .inferred }
        options.migrationMemoryBudget = 16 << 10
        options.scratchDirectory = scratch
        if let progress { options.migrationProgress = { progress.append($0) } }
        return try ObjectStore(at: path, model: model, options: options)
    }

    /// 600 accounts and 100 admins (the sub-entity shares the rule's scope), every email
    /// distinct, name pairs distinct; `duplicate` copies the last admin's values onto
    /// the first account.
    static func seed(_ path: String, _ model: ObjectModel, duplicate: Bool) throws -> (first: ObjectID, last: ObjectID) {
        let store = try Self.open(path, model, migrate: false)
        defer { try? store.close() }
        var rows: [[String: Value]] = (0..<600).map { i in
            ["email": .string("a\(i)@x"), "first": .string("F\(i % 30)"), "last": .string("L\(i / 30)")]
        }
        rows[7]["email"] = .null   // values are null-distinct: nils never collide
        rows[9]["email"] = .null
        if duplicate { rows[0] = ["email": .string("admin99@x"), "first": .string("AF"), "last": .string("AL99")] }
        let accounts = try store.batchInsert(entityName: "Account", objects: rows)
        let admins = try store.batchInsert(entityName: "Admin", objects: (0..<100).map { i in
            ["email": .string("admin\(i)@x"), "first": .string("AF"), "last": .string("AL\(i)")]
        })
        return (accounts[0], admins[99])
    }

    static func scratchIsEmpty(_ dir: TemporaryDirectory) throws -> Bool {
        try FileManager.default.contentsOfDirectory(atPath: dir.appending("scratch")).isEmpty
    }

    @Test(arguments: [false, true])
    func aDuplicateFailsTheStageAndLeavesTheStoreUnchanged(compound: Bool) throws {
        let dir = try TemporaryDirectory("in-place-unique-dup")
        defer { dir.remove() }
        let path = dir.appending("Accounts.strata")
        try FileManager.default.createDirectory(atPath: dir.appending("scratch"), withIntermediateDirectories: true)
        let ids = try Self.seed(path, try Self.accounts("1"), duplicate: true)
        let before = try StoreContents(path)
        let progress = ProgressLog()
        let v2 = try Self.accounts("2", unique: !compound, compound: compound)
        let error = #expect(throws: StrataError.self) {
            try Self.open(path, v2, progress: progress, scratch: dir.appending("scratch"))
        }
        #expect(error?.code == .uniquenessViolation, "\(String(describing: error))")
        #expect(error?.context["entity"] == "Account")
        #expect(error?.context["properties"] == (compound ? "first,last" : "email"))
        #expect(error?.context["value"] == (compound ? "(\"AF\", \"AL99\")" : "\"admin99@x\""))
        #expect(error?.context["objects"] == "\(ids.first)\n\(ids.last)")
        #expect(error?.message.contains(compound ? "Account.(first, last)" : "Account.email") == true)
        #expect(!progress.passes.contains(.createInstances), "checked without a staging store")
        #expect(try StoreContents(path) == before)
        #expect(try Self.scratchIsEmpty(dir), "the sorted runs are removed")
        let store = try Self.open(path, try Self.accounts("1"), migrate: false)
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Account")) == 700)
        try store.close()
    }

    @Test(arguments: [false, true])
    func withoutDuplicatesTheRuleIsBuiltInPlaceAndHoldsAfter(compound: Bool) throws {
        let dir = try TemporaryDirectory("in-place-unique-ok")
        defer { dir.remove() }
        let path = dir.appending("Accounts.strata")
        try FileManager.default.createDirectory(atPath: dir.appending("scratch"), withIntermediateDirectories: true)
        _ = try Self.seed(path, try Self.accounts("1"), duplicate: false)
        let v2 = try Self.accounts("2", unique: !compound, compound: compound)
        let progress = ProgressLog()
        do {
            let store = try Self.open(path, v2, progress: progress, scratch: dir.appending("scratch"))
            #expect(progress.passes == [.inPlace, .swap], "\(progress.passes)")
            #expect(!FileManager.default.fileExists(atPath: path + "/staging"))
            #expect(try Self.scratchIsEmpty(dir))
            #expect(try store.verify().isSound)
            try store.close()
        }
        let store = try ObjectStore(at: path, model: v2)
        defer { try? store.close() }
        let context = store.newContext()
        #expect(try context.count(for: FetchRequest(entityName: "Account")) == 700)
        // The rule's terms are on the old records: an equal value is refused at save,
        // for the entity and its sub-entity alike; a nil is still no value.
        for entity in ["Account", "Admin"] {
            let twin = try context.insert(entity)
            try twin.setValue(compound ? "unique-\(entity)@x" : "admin5@x", forKey: "email")
            try twin.setValue(compound ? "F3" : "new", forKey: "first")
            try twin.setValue(compound ? "L0" : "new-\(entity)", forKey: "last")
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.context["properties"] == (compound ? "first,last" : "email"), "\(String(describing: error))")
            context.rollback()
        }
        let blank = try context.insert("Account")
        try blank.setValue("fresh", forKey: "first")
        try context.save()
        // Batch inserts consult the same terms.
        let row: [String: Value] = compound ? ["first": .string("AF"), "last": .string("AL3")] : ["email": .string("a5@x")]
        let error = #expect(throws: StrataError.self) { try store.batchInsert(entityName: "Account", objects: [row]) }
        #expect(error?.code == .uniquenessViolation, "\(String(describing: error))")
    }

    /// An attribute that was indexed already has its terms: becoming unique is a check
    /// and a metadata swap, no record written.
    @Test func anIndexedAttributeBecomesUniqueWithoutAWrite() throws {
        let dir = try TemporaryDirectory("in-place-unique-indexed")
        defer { dir.remove() }
        let path = dir.appending("Accounts.strata")
        _ = try Self.seed(path, try Self.accounts("1", indexed: true), duplicate: false)
        let sequence: UInt64
        do {
            let store = try Self.open(path, try Self.accounts("1", indexed: true), migrate: false)
            sequence = store.records.lastSequence
            try store.close()
        }
        let v2 = try Self.accounts("2", unique: true, indexed: true)
        let progress = ProgressLog()
        let store = try Self.open(path, v2, progress: progress)
        defer { try? store.close() }
        #expect(progress.passes == [.inPlace, .swap])
        #expect(store.records.lastSequence == sequence, "no record written")
        let context = store.newContext()
        let twin = try context.insert("Account")
        try twin.setValue("a17@x", forKey: "email")
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.context["value"] == "\"a17@x\"", "\(String(describing: error))")
    }

    /// A new attribute with a default: the existing objects read the default, so a
    /// unique one with two objects is a duplicate, and an indexed one answers an
    /// equality query on the default for the old objects too.
    @Test func aNewAttributeWithADefaultIsCheckedAndIndexedForTheObjectsThereAre() throws {
        let dir = try TemporaryDirectory("in-place-unique-default")
        defer { dir.remove() }
        let path = dir.appending("Accounts.strata")
        _ = try Self.seed(path, try Self.accounts("1"), duplicate: false)
        let before = try StoreContents(path)
        let unique = try Self.accounts("2", region: (indexed: false, unique: true, default: .string("eu")))
        let error = #expect(throws: StrataError.self) { try Self.open(path, unique) }
        #expect(error?.code == .uniquenessViolation)
        #expect(error?.context["value"] == "\"eu\"")
        #expect(try StoreContents(path) == before)

        let indexed = try Self.accounts("2", region: (indexed: true, unique: false, default: .string("eu")))
        let progress = ProgressLog()
        let store = try Self.open(path, indexed, progress: progress)
        defer { try? store.close() }
        #expect(progress.passes == [.inPlace, .swap])
        let request = FetchRequest(entityName: "Account", predicate: .key("region") == .constant(.string("eu")))
        let plan = try request.explain(in: store.newContext())
        #expect(plan.access == .index(conditions: ["region == \"eu\""]) || "\(plan.access)".contains("index"), "\(plan)")
        #expect(try store.newContext().count(for: request) == 700)
    }

    /// Dropping a rule leaves its terms behind unless the records are written again:
    /// such a stage rewrites them.
    @Test func aDroppedRuleRewrites() throws {
        let dir = try TemporaryDirectory("in-place-unique-drop")
        defer { dir.remove() }
        let path = dir.appending("Accounts.strata")
        _ = try Self.seed(path, try Self.accounts("1", unique: true, compound: true), duplicate: false)
        let progress = ProgressLog()
        let store = try Self.open(path, try Self.accounts("2"), progress: progress)
        defer { try? store.close() }
        #expect(progress.passes.contains(.createInstances))
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Account")) == 700)
    }

    /// A full disk, or a failing write, while the check spills its sorted runs: the
    /// stage fails with the I/O error, the store holds what it held, and the
    /// scratch directory holds nothing.
    @Test(arguments: ["write", "create", "diskFull"])
    func aScratchFailureFailsTheStageAndLosesNothing(fault: String) throws {
        let memory = InMemoryFileSystem()
        let faults = FaultInjectingFileSystem(wrapping: memory)
        var options = StoreOptions()
        options.fileSystem = faults
        options.migrationMemoryBudget = 16 << 10
        options.scratchDirectory = "/scratch"
        let path = "/stores/Accounts.strata"
        do {
            let store = try ObjectStore(at: path, model: try Self.accounts("1"), options: options)
            _ = try store.batchInsert(entityName: "Account", objects: (0..<600).map { ["email": .string("a\($0)@x")] })
            try store.close()
        }
        let before = try StoreContents(path, fileSystem: memory)
        let id = switch fault {
        case "write": faults.inject(.fail(.write, errno: EIO, matching: .contains("/scratch/"), on: .always))
        case "create": faults.inject(.fail(.create, errno: ENOSPC, matching: .contains("/scratch/"), on: .always))
        default: faults.inject(.diskFull(afterBytes: 0))
        }
        options.migration = .inferred
        let error = #expect(throws: StrataError.self) {
            try ObjectStore(at: path, model: try Self.accounts("2", unique: true), options: options)
        }
        #expect(error?.code == .io, "\(String(describing: error))")
        #expect(try StoreContents(path, fileSystem: memory) == before)
        #expect(((try? memory.contentsOfDirectory("/scratch")) ?? []).isEmpty)
        faults.removeFault(id)
        var plain = StoreOptions()
        plain.fileSystem = memory
        let store = try ObjectStore(at: path, model: try Self.accounts("1"), options: plain)
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Account")) == 600)
        try store.close()
    }

    /// A read that fails late in the pass, once the build's transaction has begun
    /// (chunks of 100, the reserved term number written): the stage fails with the I/O
    /// error, the transaction stays uncommitted, the reservation is put back, and the
    /// stage run again builds the rule.
    @Test func aReadFailingMidPassLeavesTheStoreAsItWasAndTheStageRunsAgain() throws {
        let path = "/stores/Accounts.strata"
        // The pass's reads of the segments, counted in a migration of the same store.
        let segmentReads = try Self.segmentReadsOfTheUniqueStage(at: path)
        #expect(segmentReads > 20, "\(segmentReads) segment reads")
        let memory = InMemoryFileSystem()
        let faults = FaultInjectingFileSystem(wrapping: memory)
        let options = try Self.seedForMidPass(faults, at: path)
        let before = try StoreContents(path, fileSystem: memory)
        let id = faults.inject(.fail(.read, errno: EIO, matching: .contains("/segments/"), on: .nth(segmentReads * 3 / 4)))
        let error = #expect(throws: StrataError.self) {
            try ObjectStore(at: path, model: try Self.accounts("2", unique: true), options: options)
        }
        #expect(faults.timesFired(id) == 1)
        #expect(error?.code == .io, "\(String(describing: error))")
        #expect(try StoreContents(path, fileSystem: memory) == before)
        faults.removeFault(id)
        let store = try ObjectStore(at: path, model: try Self.accounts("2", unique: true), options: options)
        defer { try? store.close() }
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Account")) == 3_000)
        let context = store.newContext()
        let duplicate = try context.insert("Account")
        try duplicate.setValue("a7@x", forKey: "email")
        #expect(throws: StrataError.self) { try context.save() }
    }

    /// 3,000 accounts with distinct emails at `path`; returns the options to migrate
    /// them with (chunks of 100, scratch on the same file system).
    static func seedForMidPass(_ fileSystem: any FileSystem, at path: String) throws -> StoreOptions {
        var options = StoreOptions()
        options.fileSystem = fileSystem
        options.migrationBatchSize = 100
        options.scratchDirectory = "/scratch"
        let store = try ObjectStore(at: path, model: try Self.accounts("1"), options: options)
        _ = try store.batchInsert(entityName: "Account", objects: (0..<3_000).map { ["email": .string("a\($0)@x")] })
        try store.close()
        options.migration = .inferred
        return options
    }

    /// The reads of segment files that the in-place stage to a unique email makes on
    /// the store ``seedForMidPass(_:at:)`` writes.
    static func segmentReadsOfTheUniqueStage(at path: String) throws -> Int {
        let recorder = FaultInjectingFileSystem(wrapping: InMemoryFileSystem())
        let options = try seedForMidPass(recorder, at: path)
        recorder.isRecording = true
        let store = try ObjectStore(at: path, model: try Self.accounts("2", unique: true), options: options)
        recorder.isRecording = false
        try store.close()
        return recorder.events.filter { $0.operation == .read && $0.paths.contains { $0.contains("/segments/") } }.count
    }
}
