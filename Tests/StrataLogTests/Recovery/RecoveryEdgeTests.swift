import Testing
import Logging
import StrataTestSupport
@testable import StrataLog

/// Recovery rules at their edges: what is a torn tail and what is damage, what open
/// may cut and what it must refuse.
@Suite struct RecoveryEdgeTests {
    @Test func sequencesNeverGoBackAfterCompactionDropsTheNewestRecords() throws {
        let dir = try TemporaryDirectory("seqfloor")
        defer { dir.remove() }
        do {
            let store = try LogStore.open(at: dir.path, logger: .quiet)
            var put = WriteBatch()
            put.put(RecordKey(1), value: [1])
            try store.commit(put)
            var delete = WriteBatch()
            delete.delete(RecordKey(1))
            #expect(try store.commit(delete) == 2)
            try store.compact(force: true) // drops both: nothing carries sequence 2 any more
            try store.close()
        }
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        defer { try? store.close() }
        #expect(store.lastSequence == 2)
        var next = WriteBatch()
        next.put(RecordKey(2), value: [2])
        #expect(try store.commit(next) == 3)
    }

    @Test func damageFollowedByIntactTransactionsIsAnErrorNotATornTail() throws {
        let dir = try TemporaryDirectory("midlog")
        defer { dir.remove() }
        do {
            var options = LogStoreOptions()
            options.compressRecords = false
            let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
            for key in UInt64(1)...4 {
                var batch = WriteBatch()
                batch.put(RecordKey(key), value: LogFixtures.value(key, size: 50))
                try store.commit(batch)
            }
            try store.close()
        }
        let segment = dir.path + "/segments/000001.seg"
        try FileBytes.flip(segment, at: Format.segmentHeaderSize + Format.frameHeaderSize + 10)
        let error = #expect(throws: StrataError.self) { _ = try LogStore.open(at: dir.path, logger: .quiet) }
        #expect(error?.code == .corrupt)
        #expect(error?.path == segment)
        #expect(error?.offset == Int64(Format.segmentHeaderSize))
        #expect(try FileBytes.size(segment) > Format.segmentHeaderSize + 200, "nothing was cut")

        var salvage = LogStoreOptions()
        salvage.salvageDamagedTail = true
        let store = try LogStore.open(at: dir.path, options: salvage, logger: .quiet)
        #expect(store.count == 0)
        try store.close()
    }

    @Test func aSealedSegmentThatLostItsTailIsDetected() throws {
        let dir = try TemporaryDirectory("sealedtail")
        defer { dir.remove() }
        do {
            let store = try LogStore.open(at: dir.path, logger: .quiet)
            for key in UInt64(1)...3 {
                var batch = WriteBatch()
                batch.put(RecordKey(key), value: LogFixtures.value(key, size: 50))
                try store.commit(batch)
            }
            try store.sealActiveSegment()
            try store.close()
        }
        let segment = dir.path + "/segments/000001.seg"
        try FileBytes.truncate(segment, to: try FileBytes.size(segment) - 40)
        // Its index file recorded the segment's length when sealed: it no longer fits,
        // so open rebuilds it from the segment, and refuses.
        let withIndex = #expect(throws: StrataError.self) { _ = try LogStore.open(at: dir.path, logger: .quiet) }
        #expect(withIndex?.code == .corrupt)
        #expect(withIndex?.path == segment)
        // Without it, the same.
        try POSIXFileSystem().remove(dir.path + "/index/000001.idx")
        let error = #expect(throws: StrataError.self) { _ = try LogStore.open(at: dir.path, logger: .quiet) }
        #expect(error?.code == .corrupt)
        #expect(error?.path == segment)
    }

    @Test func aDirectoryWithDataButNoManifestIsNotOverwritten() throws {
        let dir = try TemporaryDirectory("nomanifest")
        defer { dir.remove() }
        do {
            let store = try LogStore.open(at: dir.path, logger: .quiet)
            var batch = WriteBatch()
            batch.put(RecordKey(1), value: [1, 2, 3])
            try store.commit(batch)
            try store.close()
        }
        try POSIXFileSystem().remove(dir.path + "/MANIFEST")
        let error = #expect(throws: StrataError.self) { _ = try LogStore.open(at: dir.path, logger: .quiet) }
        #expect(error?.code == .corrupt)
        #expect(try FileBytes.size(dir.path + "/segments/000001.seg") > Format.segmentHeaderSize)
    }

    @Test func damagedBlobBeforeCommittedBlobsDoesNotCutThem() throws {
        let dir = try TemporaryDirectory("blobmid")
        defer { dir.remove() }
        let first = LogFixtures.noise(3000, seed: 1)
        let second = LogFixtures.noise(3000, seed: 2)
        var refs: [BlobRef] = []
        do {
            let store = try LogStore.open(at: dir.path, logger: .quiet)
            refs = [try store.writeBlob(first), try store.writeBlob(second)]
            var batch = WriteBatch()
            batch.put(RecordKey(1), value: [], blobs: refs)
            try store.commit(batch)
            try store.close()
        }
        let blobPath = dir.path + "/blobs/000001.blob"
        let size = try FileBytes.size(blobPath)
        try FileBytes.flip(blobPath, at: Int(refs[0].offset) + 3) // the first entry's header
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        defer { try? store.close() }
        #expect(try FileBytes.size(blobPath) == size)
        #expect(try store.readBlob(refs[1]) == second)
        let error = #expect(throws: StrataError.self) { _ = try store.readBlob(refs[0]) }
        #expect(error?.path == blobPath)
        #expect(!(try store.verify().isSound))
    }

    @Test func relaxedDurabilityStillSyncsBlobsBeforeTheirCommit() throws {
        let memory = InMemoryFileSystem()
        var options = LogStoreOptions()
        options.durability = .none
        let store = try LogStore.open(at: "/s", options: options, fileSystem: memory, logger: .quiet)
        let ref = try store.writeBlob(LogFixtures.noise(500, seed: 3))
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: [1], blobs: [ref])
        try store.commit(batch)
        // The segment was not synced (durability .none), the blob was.
        let durableBlob = memory.durableBytes(of: "/s/blobs/000001.blob") ?? []
        #expect(durableBlob.count >= Int(ref.offset + ref.length) + Format.blobEntryHeaderSize)
        memory.crash()
        let reopened = try LogStore.open(at: "/s", options: options, fileSystem: memory, logger: .quiet)
        if let record = try reopened.get(RecordKey(1)) { #expect(try reopened.readBlob(record.blobs[0]).count == 500) }
        try reopened.close()
    }
}
