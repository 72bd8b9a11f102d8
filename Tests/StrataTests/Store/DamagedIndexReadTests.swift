import Foundation
import Testing
import StrataTestSupport
@testable import StrataLog
@testable import Strata

/// An index file that is damaged while its segment is damaged too cannot be rebuilt.
/// Reads that need it must not answer "nothing" then: a query would miss objects the
/// store holds, and a uniqueness check would let a duplicate in. Found by the store
/// fuzz target (Fuzz/Corpus/store/crash-a93e…): a sealed segment's first commit frame
/// said it closed 0 records frames (its CRC recomputed), and a byte of its index
/// file's term block was flipped; a fetch by an indexed attribute then answered
/// nothing for an object saved after open.
@Suite struct DamagedIndexReadTests {
    static let root = "/store"

    static let model: ObjectModel? = try? ObjectModel(version: "damaged-index") {
        Entity("Department") {
            Attribute("name", .string, indexed: true)
        }
        Entity("Employee") {
            Attribute("serial", .int64, unique: true)
        }
    }

    static func options(_ memory: InMemoryFileSystem) -> StoreOptions {
        var options = StoreOptions()
        options.fileSystem = memory
        options.logger = .quiet
        options.log.segmentSizeLimit = 1024
        options.log.compressRecords = false
        return options
    }

    /// A store whose segment 1 is sealed (with its index file) and holds D0 and the
    /// employee with serial 0; then segment 1's first commit frame and a term block of
    /// its index file are damaged, their checksums recomputed or not as a bad copy would.
    static func damagedStore() throws -> (InMemoryFileSystem, ObjectModel) {
        let model = try #require(Self.model)
        let memory = InMemoryFileSystem()
        let store = try ObjectStore(at: root, model: model, options: options(memory))
        for round in 0..<8 {
            let context = store.newContext()
            try context.insert("Department").setValue("D\(round)", forKey: "name")
            try context.insert("Employee").setValue(.int(Int64(round)), forKey: "serial")
            try context.save()
        }
        try store.close()
        memory.makeAllDurable()

        let segment = root + "/segments/000001.seg"
        var bytes = try #require(memory.bytes(of: segment))
        let commit = try #require(firstCommitFrame(bytes))
        bytes[commit + Format.frameHeaderSize + 12] = 0  // frame count 1 → 0
        bytes[commit + Format.frameHeaderSize + 13] = 0
        let crc = CRC32C.checksum(Array(bytes[commit..<commit + 4]) + Array(bytes[(commit + 8)..<(commit + Format.frameHeaderSize + 16)]))
        for i in 0..<4 { bytes[commit + 4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        try memory.setBytes(bytes, of: segment)

        let index = root + "/index/000001.idx"
        var indexBytes = try #require(memory.bytes(of: index))
        let footer = try IndexFooter.decode(Array(indexBytes.suffix(IndexFooter.size)), fileSize: Int64(indexBytes.count), path: index)
        #expect(footer.termCount > 0)
        indexBytes[Int(footer.dataFence.offset) - 6] ^= 0x40  // inside the last term block (they end where the data fence starts)
        try memory.setBytes(indexBytes, of: index)
        return (memory, model)
    }

    /// The offset of the segment's first commit frame, walking frame headers from the file header.
    static func firstCommitFrame(_ bytes: [UInt8]) -> Int? {
        var offset = Format.segmentHeaderSize
        while offset + Format.frameHeaderSize <= bytes.count {
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
            if bytes[offset + 8] == 2 { return offset }
            offset += Format.frameHeaderSize + length
        }
        return nil
    }

    @Test func termReadsThrowInsteadOfAnsweringNothing() throws {
        let (memory, _) = try Self.damagedStore()
        let store = try LogStore.open(at: Self.root, options: Self.options(memory).log, fileSystem: memory, logger: .quiet)
        defer { try? store.close() }
        let error = #expect(throws: StrataError.self) {
            _ = try store.keys(index: 1, from: nil, through: nil)
        }
        #expect(error?.code == .corrupt)
        #expect(error?.path == Self.root + "/segments/000001.seg")
        #expect(try !store.verify().isSound)
    }

    @Test func aFetchByAnIndexedAttributeScansWhenTheIndexCannotBeRead() throws {
        let (memory, model) = try Self.damagedStore()
        let store = try ObjectStore(at: Self.root, model: model, options: Self.options(memory))
        defer { try? store.close() }
        let context = store.newContext()
        try context.insert("Department").setValue("after open", forKey: "name")
        try context.save()
        let reader = store.newContext()
        for name in ["D0", "D5", "after open"] {
            let found = try reader.fetch(FetchRequest(entityName: "Department", predicate: try Predicate(format: "name == %@", name)))
            #expect(try found.map { try $0.value(forKey: "name") } == [.string(name)], "\(name)")
        }
        let all = try reader.fetch(FetchRequest(entityName: "Department", predicate: try Predicate(format: "name BEGINSWITH 'D'")))
        #expect(all.count == 8)
    }

    @Test func aUniquenessCheckThatCannotReadItsIndexRefusesTheSave() throws {
        let (memory, model) = try Self.damagedStore()
        let store = try ObjectStore(at: Self.root, model: model, options: Self.options(memory))
        defer { try? store.close() }
        let context = store.newContext()
        try context.insert("Employee").setValue(.int(0), forKey: "serial")  // serial 0 is in segment 1
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .corrupt)
        // Nothing was committed: serial 0 is held once.
        let reader = store.newContext()
        let serials = try reader.fetch(FetchRequest(entityName: "Employee")).map { try $0.value(forKey: "serial") }
        #expect(serials.filter { $0 == .int(0) }.count == 1)
    }
}
