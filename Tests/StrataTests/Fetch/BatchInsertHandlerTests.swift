import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog

/// `batchInsert(entityName:dictionaryHandler:)`: objects produced one at a time and
/// written in chunks, one transaction whole or not at all.
@Suite("Batch insert from a handler")
struct BatchInsertHandlerTests {
    /// More than two of the insert's chunks (`insertChunkSize` is set to 8,000 here),
    /// so the chunked commit is the one taken.
    static let count = 20_000
    static var options: StoreOptions {
        var options = StoreOptions()
        options.insertChunkSize = 8_000
        return options
    }

    static func values(_ i: Int) -> [String: Value] {
        ["name": .string("E\(i)"), "age": .int(Int64(i % 97)), "email": .string("e\(i)@example.com"), "salary": .double(Double(i))]
    }

    /// A handler giving `values(0..<count)`, then `true`.
    static func handler(count: Int = count, change: @escaping (Int, inout [String: Value]) throws -> Void = { _, _ in }) -> (inout [String: Value]) throws -> Bool {
        var next = 0
        return { values in
            guard next < count else { return true }
            values = Self.values(next)
            try change(next, &values)
            next += 1
            return false
        }
    }

    @Test("inserts every object in one transaction, indexed and unique", arguments: FetchFixtures.Kind.underTest)
    func insertsEverything(kind: FetchFixtures.Kind) throws {
        var options = Self.options
        options.externalStorageThreshold = 100
        try FetchFixtures.withStore(kind, options: options) { store in
            try FetchFixtures.populate(store)
            let before = store.statistics.commits
            let inserted = try store.batchInsert(entityName: "Employee", dictionaryHandler: Self.handler { i, values in
                if i % 5_000 == 7 { values["photo"] = .binary(Data(repeating: UInt8(i % 251), count: 300)) }
            })
            #expect(inserted == Self.count)
            #expect(store.statistics.commits == before + 1)
            let context = store.newContext()
            #expect(try context.count(for: FetchRequest(entityName: "Employee")) == Self.count + 5)
            // The age index holds every new object (and the fixtures' of that age).
            let aged = try context.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 13 AND name BEGINSWITH 'E1'")))
            let expected = (0..<Self.count).filter { $0 % 97 == 13 && "E\($0)".hasPrefix("E1") }.count
            #expect(aged.count == expected)
            // Values, and the binaries that went to the blob area.
            let byEmail = try context.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "email == 'e15007@example.com'")))
            #expect(byEmail.count == 1)
            #expect(try byEmail.first?.string("name") == "E15007")
            #expect(try byEmail.first?.data("photo") == Data(repeating: UInt8(15_007 % 251), count: 300))
            #expect(try byEmail.first?.bool("active") == true) // the default
            // The email's uniqueness now covers the new objects.
            let twin = try context.insert("Employee")
            try twin.setValue("Twin", forKey: "name")
            try twin.setValue(.int(1), forKey: "age")
            try twin.setValue("e19999@example.com", forKey: "email")
            let refused = #expect(throws: StrataError.self) { try context.save() }
            // A save reports its uniqueness failures as validation failures, each named.
            #expect(refused?.code == .validationFailed)
            #expect(refused?.message.contains("Employee.email must be unique") == true)
        }
    }

    @Test("a bad object in a later chunk writes nothing, and the store goes on", arguments: FetchFixtures.Kind.underTest)
    func badObjectWritesNothing(kind: FetchFixtures.Kind) throws {
        try FetchFixtures.withStore(kind, options: Self.options) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            let before = try context.count(for: FetchRequest(entityName: "Employee"))
            var error = #expect(throws: StrataError.self) {
                try store.batchInsert(entityName: "Employee", dictionaryHandler: Self.handler { i, values in
                    if i == 17_000 { values["age"] = .string("old") }
                })
            }
            #expect(error?.code == .typeMismatch)
            #expect(error?.context["index"] == "17000")
            #expect(try context.count(for: FetchRequest(entityName: "Employee")) == before)

            // A duplicate of an earlier object of the same batch, chunks apart.
            error = #expect(throws: StrataError.self) {
                try store.batchInsert(entityName: "Employee", dictionaryHandler: Self.handler { i, values in
                    if i == 16_500 { values["email"] = .string("e3@example.com") }
                })
            }
            #expect(error?.code == .uniquenessViolation)
            #expect(error?.context["index"] == "16500")

            // What the handler throws comes out as it is.
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try store.batchInsert(entityName: "Employee", dictionaryHandler: Self.handler { i, _ in if i == 12_000 { throw Stop() } })
            }
            #expect(try context.count(for: FetchRequest(entityName: "Employee")) == before)
            #expect(try store.newContext().fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 3"))).count
                    == (try context.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 3")))).count)

            // The next insert succeeds and nothing of the failed ones shows up.
            #expect(try store.batchInsert(entityName: "Employee", dictionaryHandler: Self.handler(count: 10)) == 10)
            #expect(try context.count(for: FetchRequest(entityName: "Employee")) == before + 10)
        }
    }

    @Test("no objects: nothing written; observers get every id")
    func emptyAndObserved() async throws {
        let (stream, inserted) = try FetchFixtures.withStore(.inMemory, options: Self.options) { store -> (ChangeStream, Int) in
            let before = store.statistics.commits
            #expect(try store.batchInsert(entityName: "Employee") { _ in true } == 0)
            #expect(store.statistics.commits == before)
            let stream = store.changes()
            return (stream, try store.batchInsert(entityName: "Employee", dictionaryHandler: Self.handler(count: 9_000)))
        }
        var changes: ChangeSet?
        for await change in stream { changes = change; break }
        #expect(inserted == 9_000)
        #expect(changes?.inserted.count == 9_000)
    }

    @Test("the store reopens with every object, and verify finds the index sound")
    func reopens() throws {
        let dir = try TemporaryDirectory("handler-insert")
        defer { dir.remove() }
        let path = dir.appending("S.strata")
        do {
            let store = try StoreUnderTest.open(at: path, model: try FetchFixtures.model(), options: Self.options)
            try FetchFixtures.populate(store)
            try store.batchInsert(entityName: "Employee", dictionaryHandler: Self.handler())
            try store.close()
        }
        let store = try StoreUnderTest.open(at: path, model: try FetchFixtures.model())
        defer { try? store.close() }
        let context = store.newContext()
        #expect(try context.count(for: FetchRequest(entityName: "Employee")) == Self.count + 5)
        #expect(try context.count(for: FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 96"))) == (0..<Self.count).filter { $0 % 97 == 96 }.count)
        #expect(try store.records.verify().isSound)
    }

    /// The first chunk is `insertChunkSize` objects, so an insert of up to that many
    /// stays one ordinary commit; the chunks after it are at most 8,192 objects
    /// (`StoreOptions.insertHandOverSize`), each one write of frames to the
    /// transaction's own segment, which then gets its commit frame and its seal.
    @Test("hands over a first chunk of insertChunkSize, then chunks of at most 8,192")
    func chunkSizes() throws {
        for (count, segmentWrites) in [(20_000, 1), (30_000, 3 + 2)] {
            let fs = FaultInjectingFileSystem(wrapping: InMemoryFileSystem())
            var options = Self.options
            options.insertChunkSize = 20_000
            options.fileSystem = fs
            options.logger = .quiet
            let store = try StoreUnderTest.open(at: "/s", model: try FetchFixtures.model(), options: options)
            defer { try? store.close() }
            fs.isRecording = true
            #expect(try store.batchInsert(entityName: "Employee", dictionaryHandler: Self.handler(count: count)) == count)
            fs.isRecording = false
            // 20,000: one commit in the active segment. 30,000: 20,000 + 8,192 + 1,808
            // objects, the commit frame, the seal.
            // The segment is the first segment file written (a chunk's terms may reach
            // their scratch run in `index/` first).
            let writes = fs.events.filter { $0.operation == .write }.flatMap(\.paths)
            let segment = try #require(writes.first { $0.contains("/segments/") })
            #expect(writes.filter { $0 == segment }.count == segmentWrites, "\(count) objects")
            #expect(try store.newContext().count(for: FetchRequest(entityName: "Employee")) == count)
        }
    }

    /// Keys are taken a run of `KeyRun.length` at a time: the objects still get
    /// consecutive serials, the part of the last run left unused goes back (the next
    /// object follows on), and a run is not given back over serials taken after it.
    @Test("keys come in runs: dense, the unused rest given back, never over later keys", StoreUnderTest.engineSpecific)
    func keyRuns() throws {
        try FetchFixtures.withStore(.inMemory, options: Self.options) { store in
            let tag = try store.schema.shape("Employee").layout.tag
            let first = store.nextSerial(tag: tag)
            let count = ObjectStore.KeyRun.length * 2 + 5
            #expect(try store.batchInsert(entityName: "Employee", dictionaryHandler: Self.handler(count: count)) == count)
            #expect(store.nextSerial(tag: tag) == first + UInt64(count))
            let context = store.newContext()
            let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Employee")).map { $0.key.rawValue & ObjectID.serialMask }
            #expect(Array(ids.suffix(count)) == Array(first..<(first + UInt64(count))))
            // A handler that fails part way gives back what it did not use too.
            let failed = #expect(throws: StrataError.self) {
                try store.batchInsert(entityName: "Employee", dictionaryHandler: Self.handler(count: 10) { i, values in
                    if i == 3 { throw StrataError(.invalidArgument, "stop") }
                    values["email"] = .string("again\(i)@example.com")
                })
            }
            #expect(failed?.code == .invalidArgument)
            #expect(store.nextSerial(tag: tag) == first + UInt64(count) + 3)
            // A run whose end is no longer the counter is kept: serials are never handed out twice.
            var run = ObjectStore.KeyRun()
            let key = try store.allocateKey(tag: tag, from: &run)
            let other = try store.allocateKey(tag: tag)
            #expect(other.rawValue > key.rawValue + UInt64(ObjectStore.KeyRun.length - 1))
            store.giveBack(run, tag: tag)
            #expect(try store.allocateKey(tag: tag).rawValue == other.rawValue + 1)
        }
    }
}
