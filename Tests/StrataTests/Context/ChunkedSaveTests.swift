import Foundation
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataLog

/// A save of more than `StoreOptions.insertChunkSize` objects commits in chunks
/// (`LogStore.commit(chunks:)`): the same result as one batch, one transaction, whole
/// or not at all.
@Suite struct ChunkedSaveTests {
    static let count = 12_000

    static func options(_ fileSystem: (any FileSystem)? = nil) -> StoreOptions {
        var options = StoreOptions()
        options.externalStorageThreshold = 100
        options.insertChunkSize = 5_000
        options.fileSystem = fileSystem
        options.logger = .quiet
        return options
    }

    /// Inserts `count` employees (every 4,000th with a photo that goes to the blob
    /// area), and in the same save updates Ann and deletes Bob of the fixtures.
    static func bigChange(_ context: ObjectContext) throws {
        for i in 0..<count {
            let e = try context.insert("Employee")
            try e.setValue("E\(i)", forKey: "name")
            try e.setValue(.int(Int64(i % 50)), forKey: "age")
            if i % 4_000 == 1 { try e.setValue(Data(repeating: UInt8(i % 200), count: 500), forKey: "photo") }
        }
        let people = try context.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "name IN {'Ann Lee', 'Bob Stone'}")))
        for person in people {
            if try person.string("name") == "Ann Lee" { try person.setValue(99.0, forKey: "salary") } else { try context.delete(person) }
        }
    }

    @Test(arguments: FetchFixtures.Kind.underTest)
    func aLargeSaveIsOneTransaction(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind, options: Self.options()) { store in
            try FetchFixtures.populate(store)
            let before = store.statistics.commits
            let context = store.newContext()
            try Self.bigChange(context)
            try context.save()
            #expect(store.statistics.commits == before + 1)
            #expect(!context.hasChanges)
            let fresh = store.newContext()
            #expect(try fresh.count(for: FetchRequest(entityName: "Employee")) == Self.count + 4)
            #expect(try fresh.count(for: FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 7"))) == (0..<Self.count).filter { $0 % 50 == 7 }.count)
            let ann = try fresh.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "name == 'Ann Lee'")))
            #expect(try ann.first?.double("salary") == 99)
            #expect(try fresh.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "name == 'Bob Stone'"))).isEmpty)
            let photographed = try fresh.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "name == 'E8001'")))
            #expect(try photographed.first?.data("photo") == Data(repeating: UInt8(8_001 % 200), count: 500))
            #expect(try store.records.verify().isSound)
        }
    }

    @Test func aFailedLargeSaveLeavesNothingAndCanBeRetried() throws {
        let memory = InMemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        let store = try StoreUnderTest.open(at: "/s", model: try FetchFixtures.model(), options: Self.options(fs))
        try FetchFixtures.populate(store)
        let context = store.newContext()
        try Self.bigChange(context)
        // Writes to segments/: the seal of the pre-roll, the new segment's header, the
        // first chunk's frames; the second chunk's fail.
        _ = fs.inject(.fail(.write, matching: "segments/", on: .nth(4)))
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .io)
        fs.clearFaults()
        #expect(context.hasChanges)
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Employee")) == 5)
        // The store stayed writable (a failed write is taken back), and the same
        // changes save now.
        try context.save()
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Employee")) == Self.count + 4)
        try store.close()
        let reopened = try StoreUnderTest.open(at: "/s", model: try FetchFixtures.model(), options: Self.options(memory))
        defer { try? reopened.close() }
        #expect(try reopened.newContext().count(for: FetchRequest(entityName: "Employee")) == Self.count + 4)
        #expect(try reopened.records.verify().isSound)
    }

    /// A save above `insertChunkSize` hands its records over in chunks of at most
    /// 8,192 (`StoreOptions.insertHandOverSize`), whatever `insertChunkSize` allows:
    /// each chunk is one write of frames to the transaction's own segment, which then
    /// gets its commit frame and its seal.
    @Test func chunksAreAtMost8192Objects() throws {
        let fs = FaultInjectingFileSystem(wrapping: InMemoryFileSystem())
        var options = Self.options(fs)
        options.insertChunkSize = 20_000
        let store = try StoreUnderTest.open(at: "/s", model: try FetchFixtures.model(), options: options)
        defer { try? store.close() }
        let context = store.newContext()
        for i in 0..<20_001 {
            let e = try context.insert("Employee")
            try e.setValue("E\(i)", forKey: "name")
            try e.setValue(.int(Int64(i % 50)), forKey: "age")
        }
        fs.isRecording = true
        try context.save()
        fs.isRecording = false
        let writes = fs.events.filter { $0.operation == .write }.flatMap(\.paths)
        let segment = try #require(writes.first)
        // 8,192 + 8,192 + 3,617 objects, the commit frame, the seal (in 20,000-object
        // chunks: 20,000 + 1, four writes).
        #expect(writes.filter { $0 == segment }.count == 3 + 2)
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Employee")) == 20_001)
        #expect(try store.records.verify().isSound)
    }
}
