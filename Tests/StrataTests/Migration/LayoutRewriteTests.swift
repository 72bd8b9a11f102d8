import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// Records of older layouts rewritten in the background: compaction rewrites every
/// segment below the store's rewrite mark, garbage or not, and once none holds a record
/// the older layouts leave the layout table — after the compaction that finished the
/// work, or at the next open when the process stopped in between.
@Suite("Migration: older layouts rewritten by compaction")
struct LayoutRewriteTests {
    typealias Base = InPlaceMigrationTests

    /// A store that went v1 → v4 in place, 36 employees written at v1 (three saves) and
    /// 8 at each later version, in small segments: records of three Employee layouts.
    static func migratedStore(at path: String, expected: inout [String: Base.Expected]) throws {
        let m = try Base.models()
        do {
            let store = try open(path, m[0], plan: nil)
            _ = try store.batchInsert(entityName: "Department", objects: [["title": .string("Sales")], ["title": .string("Lab")]])
            for tag in ["a", "f", "g"] { try Base.write(store, version: 1, tag: tag, count: 12, expected: &expected) }
            try store.close()
        }
        for version in 1...3 {
            let store = try open(path, m[version], plan: Base.plan(m, through: version))
            try Base.write(store, version: version + 1, tag: ["b", "c", "d"][version - 1], count: 8, expected: &expected)
            try store.close()
        }
    }

    /// A directory holding ``migratedStore(at:expected:)``: the directory, the store's
    /// path, and what each employee must read.
    static func migratedStore(_ name: String) throws -> (directory: TemporaryDirectory, path: String, expected: [String: Base.Expected]) {
        let dir = try TemporaryDirectory(name)
        let path = dir.appending("Staff.strata")
        var expected: [String: Base.Expected] = [:]
        do {
            try migratedStore(at: path, expected: &expected)
        } catch {
            dir.remove()
            throw error
        }
        return (dir, path, expected)
    }

    static func open(_ path: String, _ model: ObjectModel, plan: MigrationPlan?, rewriting: Bool = true) throws -> ObjectStore {
        var options = StoreOptions()
        if let plan { options.migration = .plan(plan) }
        options.compactionRewritesOlderLayouts = rewriting
        options.log.segmentSizeLimit = 512
        options.log.compactionBatchBytes = 1 << 10
        return try ObjectStore(at: path, model: model, options: options)
    }

    static func employeeLayouts(_ store: ObjectStore) throws -> [UInt32]? {
        try LayoutTable.decode(try #require(store.records.metadata[LayoutTable.metadataKey])).entities["Employee"]?.layouts.map(\.id)
    }

    /// Every object record is in its entity's current layout.
    static func expectAllCurrent(_ store: ObjectStore) throws {
        for (entity, tag) in store.schema.tags {
            let current = try #require(store.schema.shapes[entity]?.layout.layoutID)
            try store.records.scan(StoreSchema.range(tag: tag), batchSize: 64) { (batch: [Record]) throws -> Void in
                for record in batch {
                    let written = try ObjectCodec.decode(record).layoutID
                    #expect(written == current, "\(entity) \(record.key)")
                }
            }
        }
    }

    @Test func aCompactionRewritesOlderLayoutsWithoutGarbageAndDropsThem() async throws {
        let (dir, path, migrated) = try Self.migratedStore("layout-rewrite")
        defer { dir.remove() }
        var expected = migrated
        let m = try Base.models()
        do {
            let store = try Self.open(path, m[3], plan: nil)
            #expect(try Self.employeeLayouts(store) == [1, 2, 3])
            #expect(store.records.metadata[LayoutTable.rewriteMarkKey]?.count == 4)
            // Objects written now are current already; the garbage ratio is not passed.
            try Base.write(store, version: 4, tag: "e", count: 5, expected: &expected)
            #expect(store.records.usage.garbageRatio < 0.3)
            let report = try await store.compact()
            #expect(report.recordsReencoded == 44, "36 employees of layout 1, 8 of layout 2: \(report)")
            #expect(report.steps > 1)
            #expect(try Self.employeeLayouts(store) == [3])
            #expect(store.records.metadata[LayoutTable.rewriteMarkKey] == nil)
            try Self.expectAllCurrent(store)
            try Base.check(store, expected)
            #expect(try store.verify().isSound)
            // Nothing is left to rewrite: a second compaction copies nothing anew.
            #expect(try await store.compact().recordsReencoded == 0)
            try await store.close()
        }
        let store = try Self.open(path, m[3], plan: nil)
        #expect(!store.schema.layoutTable.holdsOlderLayouts)
        #expect(store.records.metadata[LayoutTable.rewriteMarkKey] == nil)
        try Base.check(store, expected)
        #expect(try store.verify().isSound)
        try await store.close()
    }

    /// A compaction that stops after some of its steps leaves the older layouts in the
    /// table (records of them remain); the next one finishes the rewrite and drops them.
    @Test func aCompactionCutShortKeepsTheLayoutsUntilTheNextOneFinishes() async throws {
        let (dir, path, expected) = try Self.migratedStore("layout-rewrite-cut")
        defer { dir.remove() }
        let store = try Self.open(path, try Base.models()[3], plan: nil)
        let log = try #require(store.records as? LogStore)
        struct Stop: Error {}
        log.compactionWillSwap.withLock { $0 = { step in if step == 2 { throw Stop() } } }
        await #expect(throws: Stop.self) { try await store.compact() }
        log.compactionWillSwap.withLock { $0 = nil }
        #expect(try Self.employeeLayouts(store) == [1, 2, 3])
        #expect(try store.dropRewrittenLayouts() == false)
        try Base.check(store, expected)
        _ = try await store.compact()
        #expect(try Self.employeeLayouts(store) == [3])
        try Self.expectAllCurrent(store)
        try Base.check(store, expected)
        try await store.close()
    }

    /// The engine's compaction alone (as a process that stopped before dropping them)
    /// leaves the layouts; the next open finds no segment below the mark and drops them.
    @Test func theNextOpenDropsLayoutsThatACompactionLeftUnused() throws {
        let (dir, path, expected) = try Self.migratedStore("layout-rewrite-open")
        defer { dir.remove() }
        let m = try Base.models()
        do {
            let store = try Self.open(path, m[3], plan: nil)
            let report = try store.records.compact(force: false)
            #expect(report.recordsReencoded == 44)
            #expect(try Self.employeeLayouts(store) == [1, 2, 3])
            try store.close()
        }
        var readOnly = StoreOptions()
        readOnly.log.readOnly = true
        do {
            // A read-only open writes nothing.
            let store = try ObjectStore(at: path, model: m[3], options: readOnly)
            #expect(try Self.employeeLayouts(store) == [1, 2, 3])
            try store.close()
        }
        let store = try Self.open(path, m[3], plan: nil)
        defer { try? store.close() }
        #expect(try Self.employeeLayouts(store) == [3])
        try Self.expectAllCurrent(store)
        try Base.check(store, expected)
        #expect(try store.verify().isSound)
    }

    /// With `compactionRewritesOlderLayouts` off, compaction copies older-layout records
    /// as they are and the layouts stay; `rewriteOlderLayouts` still rewrites them.
    @Test func compactionLeavesOlderLayoutsWhenTheOptionIsOff() async throws {
        let (dir, path, expected) = try Self.migratedStore("layout-rewrite-off")
        defer { dir.remove() }
        let m = try Base.models()
        do {
            let store = try Self.open(path, m[3], plan: nil, rewriting: false)
            let log = try #require(store.segmentLog)
            try log.sealActiveSegment()
            let before = store.usage
            // With the option on, this compaction re-encodes all 44 (the test above).
            let report = try await store.compact(force: true)
            #expect(report.recordsReencoded == 0, "\(report)")
            #expect(store.usage.segmentBytes <= before.segmentBytes)
            #expect(try Self.employeeLayouts(store) == [1, 2, 3])
            try Base.check(store, expected)
            #expect(try store.rewriteOlderLayouts() == 44)
            #expect(try Self.employeeLayouts(store) == [3])
            try Self.expectAllCurrent(store)
            try Base.check(store, expected)
            try await store.close()
        }
        let store = try Self.open(path, m[3], plan: nil)
        defer { try? store.close() }
        #expect(try Self.employeeLayouts(store) == [3])
        try Base.check(store, expected)
        #expect(try store.verify().isSound)
    }

    /// Compaction with the option off writes older-layout records above the mark an
    /// earlier open set; the open clears the mark, so that the next open with the option
    /// on does not take those records for current, drop their layouts and leave them
    /// unreadable: it sets a new mark and its compaction rewrites them.
    @Test func anOpenWithTheOptionOffClearsTheMarkItsCompactionWouldBreak() async throws {
        let (dir, path, expected) = try Self.migratedStore("layout-rewrite-off-reopen")
        defer { dir.remove() }
        let m = try Base.models()
        do {
            let store = try Self.open(path, m[3], plan: nil, rewriting: false)
            #expect(store.records.metadata[LayoutTable.rewriteMarkKey] == nil)
            try #require(store.segmentLog).sealActiveSegment()
            #expect(try await store.compact(force: true).recordsReencoded == 0)
            try await store.close()
        }
        do {
            let store = try Self.open(path, m[3], plan: nil)
            #expect(try Self.employeeLayouts(store) == [1, 2, 3])
            try Base.check(store, expected)
            #expect(try await store.compact().recordsReencoded == 44)
            #expect(try Self.employeeLayouts(store) == [3])
            try Self.expectAllCurrent(store)
            try await store.close()
        }
        let store = try Self.open(path, m[3], plan: nil)
        defer { try? store.close() }
        try Base.check(store, expected)
        #expect(try store.verify().isSound)
    }

    /// A mark that is not a segment id is damage, not a guess.
    @Test func aDamagedMarkIsRefused() throws {
        let (dir, path, _) = try Self.migratedStore("layout-rewrite-mark")
        defer { dir.remove() }
        let m = try Base.models()
        do {
            let store = try Self.open(path, m[3], plan: nil)
            var metadata = store.records.metadata
            metadata[LayoutTable.rewriteMarkKey] = [1, 2, 3]
            try store.records.setMetadata(MetadataDigest.sealed(metadata))
            try store.close()
        }
        #expect { try Self.open(path, m[3], plan: nil) } throws: { ($0 as? StrataError)?.code == .corrupt }
    }
}
