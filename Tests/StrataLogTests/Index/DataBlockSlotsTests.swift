import Testing
import StrataTestSupport
@testable import StrataLog

/// `IndexFile.decodeSlots` reads a data block's entries without decoding their blob
/// references; `IndexFile.blobs(in:at:)` decodes them when asked. Both must give what
/// the entries hold, and damage must still be named, not read past.
@Suite struct DataBlockSlotsTests {
    /// Entries of which some carry blob references (none, one or several).
    static func entries(_ random: inout SeededRandom, count: Int) -> [IndexEntry] {
        var entries = PackedIndexBlockTests.block(&random, count: count, keyGap: 5, sequences: 50, largeRecords: false)
        for i in entries.indices where random.chance(2) {
            var blobs: [BlobRef] = []
            for _ in 0..<random.int(in: 1...4) {
                let file = UInt32(random.int(in: 1...90)), checksum = UInt32(random.int(in: 0...Int(UInt32.max)))
                let offset = UInt64(random.int(in: 0...(1 << 40))), length = UInt64(random.int(in: 0...(1 << 30)))
                blobs.append(BlobRef(file: file, offset: offset, length: length, checksum: checksum))
            }
            entries[i].blobs = blobs
        }
        return entries
    }

    @Test func slotsAndTheirBlobsAreWhatTheEntriesHold() throws {
        var random = SeededRandom(seed: 31)
        for _ in 0..<100 {
            let entries = Self.entries(&random, count: random.int(in: 1...200))
            let raw = PackedIndexBlockTests.raw(entries)
            let slots = try IndexFile.decodeSlots(raw, segmentID: 7, path: "t", baseOffset: 0)
            #expect(slots.map { IndexEntry($0, blobs: IndexFile.blobs(in: raw, at: $0.blobList)) } == entries)
            #expect(slots.map { $0.blobList < 0 } == entries.map { $0.blobs.isEmpty })
        }
    }

    /// A blob reference beyond any blob file, or a blob count running past the block,
    /// is refused with the full entry reader's message, though slots leave the
    /// references undecoded.
    @Test func damagedBlobReferencesAreNamed() throws {
        var random = SeededRandom(seed: 32)
        var entries = Self.entries(&random, count: 20)
        entries[7].blobs = [BlobRef(file: 1, offset: Format.maxBlobOffset + 1, length: 10, checksum: 0)]
        #expect(throws: StrataError.self) { try IndexFile.decodeSlots(PackedIndexBlockTests.raw(entries), segmentID: 7, path: "t", baseOffset: 0) }
        entries[7].blobs = [BlobRef(file: 1, offset: 0, length: Format.maxBlobLength + 1, checksum: 0)]
        #expect(throws: StrataError.self) { try IndexFile.decodeSlots(PackedIndexBlockTests.raw(entries), segmentID: 7, path: "t", baseOffset: 0) }

        // The last entry's blob count raised past what the block holds.
        entries = Self.entries(&random, count: 20)
        entries[19].blobs = [BlobRef(file: 1, offset: 0, length: 1, checksum: 0)]
        var raw = PackedIndexBlockTests.raw(entries)
        let countAt = raw.count - 4 - BlobRef.encodedSize - 2
        #expect(raw[countAt] == 1 && raw[countAt + 1] == 0)
        raw[countAt] = 2
        #expect(throws: StrataError.self) { try IndexFile.decodeSlots(raw, segmentID: 7, path: "t", baseOffset: 0) }
        // And every cut of the block is refused, never read past.
        let whole = PackedIndexBlockTests.raw(entries)
        for cut in stride(from: 0, to: whole.count - 4, by: 7) {
            var short = Array(whole.prefix(cut))
            short += [0, 0, 0, 0]
            #expect(throws: StrataError.self) { try IndexFile.decodeSlots(short, segmentID: 7, path: "t", baseOffset: 0) }
        }
    }

    /// An offset that names no list of the block (not one `decodeSlots` gave) yields none.
    @Test func anOffsetPastTheBlockYieldsNoBlobs() {
        #expect(IndexFile.blobs(in: [1, 0], at: 0).isEmpty)
        #expect(IndexFile.blobs(in: [1, 0, 0], at: 2).isEmpty)
        #expect(IndexFile.blobs(in: [], at: 5).isEmpty)
        #expect(IndexFile.blobs(in: [3, 0, 1, 2], at: -1).isEmpty)
    }
}
