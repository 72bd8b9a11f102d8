import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// A unique or indexed attribute that may be stored in the blob area holds as an
/// inline one does. Before `strata.blobTerms` its external values carried no index
/// term: a second save of equal bytes, or a batch insert of them, was accepted, and
/// the store held what its model forbids.
@Suite struct ExternalBinaryUniquenessTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Doc", uniquenessConstraints: [["owner", "page"]]) {
                Attribute("data", .binary, optional: true, externalStorage: true, unique: true)
                Attribute("scan", .binary, optional: true, externalStorage: true, indexed: true)
                Attribute("owner", .string, optional: true)
                Attribute("page", .binary, optional: true, externalStorage: true)
            }
        }
    }

    static let threshold = 64
    static let big = Data((0..<500).map { UInt8(truncatingIfNeeded: $0 * 7) })
    static let small = Data([1, 2, 3])

    static func open(_ memory: InMemoryFileSystem) throws -> ObjectStore {
        var options = StoreOptions()
        options.fileSystem = memory
        options.logger = .quiet
        options.externalStorageThreshold = threshold
        return try ObjectStore(at: "/store", model: try model(), options: options)
    }

    @discardableResult
    static func save(_ store: ObjectStore, _ values: [String: Value]) throws -> ObjectID {
        let context = store.newContext()
        let doc = try context.insert("Doc")
        for (key, value) in values { try doc.setValue(value, forKey: key) }
        try context.save()
        return doc.objectID
    }

    @Test func equalExternalBytesAreRefusedAcrossSavesAndBatches() throws {
        let store = try Self.open(InMemoryFileSystem())
        defer { try? store.close() }
        try Self.save(store, ["data": .binary(Self.big)])
        try Self.save(store, ["data": .binary(Self.small)])  // inline: below the threshold
        for bytes in [Self.big, Self.small] {
            let error = #expect(throws: StrataError.self) { try Self.save(store, ["data": .binary(bytes)]) }
            #expect(error?.code == .validationFailed)
            let batch = #expect(throws: StrataError.self) { try store.batchInsert(entityName: "Doc", objects: [["data": .binary(bytes)]]) }
            #expect(batch?.code == .uniquenessViolation)
        }
        var other = Self.big
        other[499] ^= 1
        try Self.save(store, ["data": .binary(other)])  // differs in its last byte only
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Doc")) == 3)
    }

    @Test func aCompoundRuleWithAnExternalBinaryHolds() throws {
        let store = try Self.open(InMemoryFileSystem())
        defer { try? store.close() }
        try Self.save(store, ["owner": .string("ada"), "page": .binary(Self.big)])
        try Self.save(store, ["owner": .string("bob"), "page": .binary(Self.big)])
        let error = #expect(throws: StrataError.self) { try Self.save(store, ["owner": .string("ada"), "page": .binary(Self.big)]) }
        #expect(error?.code == .validationFailed)
    }

    @Test func anIndexedExternalBinaryIsFoundThroughItsIndex() throws {
        let store = try Self.open(InMemoryFileSystem())
        defer { try? store.close() }
        let id = try Self.save(store, ["scan": .binary(Self.big)])
        try Self.save(store, ["scan": .binary(Self.small)])
        let context = store.newContext()
        let request = FetchRequest(entityName: "Doc", predicate: try Strata.Predicate(format: "scan == %@", Value.binary(Self.big)))
        guard case .index = try request.explain(in: context).access else {
            Issue.record("an indexed external binary is not served by its index")
            return
        }
        #expect(try context.fetch(request).map(\.objectID) == [id])
    }

    /// A store whose external binaries have no terms (written before the mark) checks
    /// uniqueness by scanning: a record rewritten without its term, and the mark
    /// removed, as an older release left them.
    @Test func aStoreWrittenBeforeTheMarkIsScanned() throws {
        let memory = InMemoryFileSystem()
        let store = try Self.open(memory)
        let id = try Self.save(store, ["data": .binary(Self.big), "scan": .binary(Self.big)])
        let record = try #require(try store.records.get(id.key))
        var batch = WriteBatch()
        batch.put(id.key, value: record.value, blobs: record.blobs, terms: [])
        try store.records.commit(batch)
        var metadata = store.records.metadata
        metadata[StoreSchema.blobTermsKey] = nil
        metadata[MetadataDigest.key] = nil  // written before the digest too
        try store.records.setMetadata(metadata)
        try store.close()

        let reopened = try Self.open(memory)
        defer { try? reopened.close() }
        #expect(!reopened.blobTerms)
        let error = #expect(throws: StrataError.self) { try Self.save(reopened, ["data": .binary(Self.big)]) }
        #expect(error?.code == .validationFailed)
        let context = reopened.newContext()
        let request = FetchRequest(entityName: "Doc", predicate: try Strata.Predicate(format: "scan == %@", Value.binary(Self.big)))
        #expect(try request.explain(in: context).access == .scan)
        #expect(try context.fetch(request).map(\.objectID) == [id])
    }
}
