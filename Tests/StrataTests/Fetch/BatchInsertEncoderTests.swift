import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog

/// `batchInsert(entityName:dictionaryHandler:)` for an entity without external
/// binaries: objects are checked on the caller's thread and encoded on a second one
/// (`BatchInsertEncoder`). The same outcomes as one thread: every object in order,
/// the same errors naming the same object, the handler never asked past a bad one,
/// nothing written when anything fails.
@Suite("Batch insert encoded on a second thread")
struct BatchInsertEncoderTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("age", .int64, indexed: true)
                Attribute("email", .string, optional: true, unique: true)
                Attribute("salary", .double, default: .double(0))
                Attribute("photo", .binary, optional: true)
            }
        }
    }

    static func values(_ i: Int) -> [String: Value] {
        var values: [String: Value] = ["name": .string("Employee number \(i)"), "age": .int(Int64(i % 97)), "email": .string("e\(i)@example.com")]
        if i % 3 == 0 { values["salary"] = .double(Double(i) * 1.5) }
        if i % 1_000 == 1 { values["photo"] = .binary(Data(repeating: UInt8(i % 251), count: 2_000)) }
        return values
    }

    /// Counts the handler's calls; gives `values(0..<count)` through `change`, then `true`.
    final class Handler {
        var calls = 0
        let count: Int
        let change: (Int, inout [String: Value]) throws -> Void
        init(count: Int, change: @escaping (Int, inout [String: Value]) throws -> Void = { _, _ in }) {
            self.count = count
            self.change = change
        }
        func next(_ values: inout [String: Value]) throws -> Bool {
            calls += 1
            let i = calls - 1
            guard i < count else { return true }
            values = BatchInsertEncoderTests.values(i)
            try change(i, &values)
            return false
        }
    }

    static func withStore(_ kind: FetchFixtures.Kind, chunk: Int, _ body: (ObjectStore) throws -> Void) throws {
        var options = StoreOptions()
        options.insertChunkSize = chunk
        switch kind {
        case .inMemory:
            let store = try StoreUnderTest.inMemory(model: try model(), options: options)
            defer { try? store.close() }
            try body(store)
        case .onDisk:
            let dir = try TemporaryDirectory("encoded-insert")
            defer { dir.remove() }
            let store = try StoreUnderTest.open(at: dir.appending("E.strata"), model: try model(), options: options)
            defer { try? store.close() }
            try body(store)
        }
    }

    /// One chunk (an ordinary commit) and several (the chunked commit), each with a
    /// last run shorter than `BatchInsertEncoder.runLength`.
    @Test("every object, in the handler's order, with its values and terms", StoreUnderTest.engineSpecific, arguments: FetchFixtures.Kind.underTest, [(1_000, 32_768), (9_001, 4_000)])
    func everyObjectInOrder(kind: FetchFixtures.Kind, sizes: (count: Int, chunk: Int)) throws {
        try Self.withStore(kind, chunk: sizes.chunk) { store in
            let tag = try store.schema.shape("Employee").layout.tag
            let first = store.nextSerial(tag: tag)
            let handler = Handler(count: sizes.count)
            #expect(try store.batchInsert(entityName: "Employee", dictionaryHandler: handler.next) == sizes.count)
            #expect(store.nextSerial(tag: tag) == first + UInt64(sizes.count))
            let context = store.newContext()
            let all = try context.fetch(FetchRequest(entityName: "Employee"))
            #expect(all.count == sizes.count)
            for (i, object) in all.enumerated() where i % 97 == 0 || i % 1_000 == 1 || i == sizes.count - 1 {
                #expect(object.objectID.key.rawValue & ObjectID.serialMask == first + UInt64(i))
                #expect(try object.string("name") == "Employee number \(i)")
                #expect(try object.int("age") == i % 97)
                #expect(try object.double("salary") == (i % 3 == 0 ? Double(i) * 1.5 : 0))
                #expect(try object.data("photo") == (i % 1_000 == 1 ? Data(repeating: UInt8(i % 251), count: 2_000) : nil))
            }
            let aged = try context.count(for: FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "age == 13")))
            #expect(aged == (0..<sizes.count).filter { $0 % 97 == 13 }.count)
            let byEmail = try context.fetch(FetchRequest(entityName: "Employee", predicate: try Strata.Predicate(format: "email == %@", "e\(sizes.count - 2)@example.com")))
            #expect(try byEmail.map { try $0.string("name") } == ["Employee number \(sizes.count - 2)"])
            #expect(try store.records.verify().isSound)
        }
    }

    @Test("a bad object: the same error, the handler not asked past it, nothing written", arguments: FetchFixtures.Kind.underTest)
    func badObject(kind: FetchFixtures.Kind) throws {
        try Self.withStore(kind, chunk: 32_768) { store in
            let tag = try store.schema.shape("Employee").layout.tag
            let first = store.nextSerial(tag: tag)
            let wrongType = Handler(count: 3_000) { i, values in if i == 2_600 { values["age"] = .string("old") } }
            var error = #expect(throws: StrataError.self) { try store.batchInsert(entityName: "Employee", dictionaryHandler: wrongType.next) }
            #expect(error?.code == .typeMismatch)
            #expect(error?.context["index"] == "2600")
            #expect(wrongType.calls == 2_601)

            let duplicate = Handler(count: 3_000) { i, values in if i == 1_900 { values["email"] = .string("e5@example.com") } }
            error = #expect(throws: StrataError.self) { try store.batchInsert(entityName: "Employee", dictionaryHandler: duplicate.next) }
            #expect(error?.code == .uniquenessViolation)
            #expect(error?.context["index"] == "1900")
            #expect(duplicate.calls == 1_901)

            struct Stop: Error {}
            let stopping = Handler(count: 3_000) { i, _ in if i == 700 { throw Stop() } }
            #expect(throws: Stop.self) { try store.batchInsert(entityName: "Employee", dictionaryHandler: stopping.next) }

            let context = store.newContext()
            #expect(try context.count(for: FetchRequest(entityName: "Employee")) == 0)
            // Serials are taken only for objects handed over (the unused rest of a run goes back).
            #expect(store.nextSerial(tag: tag) <= first + 2_600 + 1_900 + 700)
            #expect(try store.batchInsert(entityName: "Employee", dictionaryHandler: Handler(count: 600).next) == 600)
            #expect(try context.count(for: FetchRequest(entityName: "Employee")) == 600)
        }
    }

    /// The one thing that can fail while encoding: the entity's serials run out part
    /// way. The insert throws and writes nothing.
    @Test("serials running out while encoding: an error, nothing written", StoreUnderTest.engineSpecific)
    func serialsRunOut() throws {
        try Self.withStore(.inMemory, chunk: 32_768) { store in
            let tag = try store.schema.shape("Employee").layout.tag
            store.serials.withLock { $0[tag] = ObjectID.serialMask - 700 }
            let error = #expect(throws: StrataError.self) {
                try store.batchInsert(entityName: "Employee", dictionaryHandler: Handler(count: 2_000).next)
            }
            #expect(error?.code == .invalidArgument)
            #expect(try store.newContext().count(for: FetchRequest(entityName: "Employee")) == 0)
            // The objects encoded before the failure used the last serials, as they would have one at a time.
            #expect(store.nextSerial(tag: tag) == ObjectID.serialMask)
            #expect(throws: StrataError.self) { try store.batchInsert(entityName: "Employee", dictionaryHandler: Handler(count: 1).next) }
        }
    }

    @Test("observers get every id")
    func observed() async throws {
        let store = try StoreUnderTest.inMemory(model: try Self.model())
        defer { try? store.close() }
        let stream = store.changes()
        #expect(try store.batchInsert(entityName: "Employee", dictionaryHandler: Handler(count: 1_500).next) == 1_500)
        var changes: ChangeSet?
        for await change in stream { changes = change; break }
        let fetched = try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Employee"))
        #expect(changes?.inserted == Set(fetched))
        #expect(fetched.count == 1_500)
    }
}
