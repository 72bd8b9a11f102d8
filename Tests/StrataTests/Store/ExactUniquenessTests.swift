import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// Uniqueness and `==` through an index agree with the model's own equality (Swift
/// `==` on `Value`) for every value, however long.
@Suite("Exact uniqueness and index lookups")
struct ExactUniquenessTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Item") {
                Attribute("code", .string, optional: true, unique: true)
                Attribute("label", .string, optional: true, indexed: true)
                Attribute("price", .decimal, optional: true, unique: true)
                Attribute("level", .double, optional: true, indexed: true, unique: true)
            }
        }
    }

    static func withStore(_ body: (ObjectStore, String) throws -> Void) throws {
        let dir = try TemporaryDirectory("exact-unique")
        defer { dir.remove() }
        let path = dir.appending("Items.strata")
        let store = try ObjectStore(at: path, model: try model())
        defer { try? store.close() }
        try body(store, path)
    }

    static func insert(_ store: ObjectStore, _ values: [String: Value]) throws -> ObjectID {
        let context = store.newContext()
        let item = try context.insert("Item")
        for (key, value) in values { try item.setValue(value, forKey: key) }
        try context.save()
        return item.objectID
    }

    static func fetch(_ store: ObjectStore, _ key: String, _ value: Value, _ op: String = "==") throws -> [ObjectID] {
        let predicate = try Strata.Predicate(format: "\(key) \(op) %@", value)
        return try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Item", predicate: predicate))
    }

    @Test func longStringsSharingTheirFirstKilobyteAreDifferentValues() throws {
        try Self.withStore { store, _ in
            let prefix = String(repeating: "x", count: 1_100)
            let a = try Self.insert(store, ["code": .string(prefix + "a"), "label": .string(prefix + "a")])
            let b = try Self.insert(store, ["code": .string(prefix + "b"), "label": .string(prefix + "b")])
            #expect(try Self.fetch(store, "label", .string(prefix + "a")) == [a])
            #expect(try Self.fetch(store, "code", .string(prefix + "b")) == [b])
            // The same long value is still a duplicate, named with its value.
            let context = store.newContext()
            let twin = try context.insert("Item")
            try twin.setValue(.string(prefix + "a"), forKey: "code")
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .validationFailed)
            #expect(error?.context["entity"] == "Item" && error?.context["properties"] == "code")
            #expect(error?.context["value"] == "\"\(prefix)a\"")
            #expect(error?.context["duplicates"]?.contains(a.description) == true)
        }
    }

    @Test func canonicallyEquivalentStringsAreOneValue() throws {
        try Self.withStore { store, _ in
            let precomposed = "caf\u{E9}"
            let decomposed = "cafe\u{301}"
            #expect(precomposed == decomposed)
            let stored = try Self.insert(store, ["code": .string(decomposed), "label": .string(decomposed)])
            #expect(try Self.fetch(store, "label", .string(precomposed)) == [stored])
            #expect(try Self.fetch(store, "label", .string(decomposed)) == [stored])
            // A range through the index orders it as Swift does: by canonical scalars,
            // "cafe" < "café" < "cb", and "cafz" < "café" (U+00E9 > "z").
            #expect(try Self.fetch(store, "label", .string("cafe"), ">") == [stored])
            #expect(try Self.fetch(store, "label", .string("cb"), "<") == [stored])
            #expect(try Self.fetch(store, "label", .string("cafz"), ">") == [stored])
            #expect(try Self.fetch(store, "label", .string("cafz"), "<").isEmpty)
            let context = store.newContext()
            let twin = try context.insert("Item")
            try twin.setValue(.string(precomposed), forKey: "code")
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .validationFailed)
            #expect(error?.context["properties"] == "code")
            #expect(try store.newContext().count(for: FetchRequest(entityName: "Item")) == 1)
            // Batch insert judges the same way.
            let batch = #expect(throws: StrataError.self) {
                try store.batchInsert(entityName: "Item", objects: [["code": .string(precomposed)]])
            }
            #expect(batch?.code == .uniquenessViolation)
            #expect(batch?.context["objects"]?.contains(stored.uriRepresentation) == true)
        }
    }

    @Test func decimalsThatRoundToOneDoubleAreDifferentValues() throws {
        try Self.withStore { store, _ in
            let one = try #require(Decimal(string: "0.1"))
            let close = try #require(Decimal(string: "0.10000000000000000001"))
            #expect(one != close)
            let a = try Self.insert(store, ["price": .decimal(one)])
            let b = try Self.insert(store, ["price": .decimal(close)])
            #expect(try Self.fetch(store, "price", .decimal(close)) == [b])
            #expect(try Self.fetch(store, "price", .decimal(one)) == [a])
            #expect(throws: StrataError.self) { try Self.insert(store, ["price": .decimal(one)]) }
        }
    }

    @Test func minusZeroEqualsZero() throws {
        try Self.withStore { store, _ in
            let negative = try Self.insert(store, ["level": .double(-0.0)])
            let positive = try Self.insert(store, ["level": .double(1)])
            #expect(try Self.fetch(store, "level", .double(0)) == [negative])
            #expect(try Self.fetch(store, "level", .double(0), ">=") == [negative, positive])
            #expect(try Self.fetch(store, "level", .double(0), "<=") == [negative])
            #expect(try Self.fetch(store, "level", .double(0), ">") == [positive])
            #expect(try Self.fetch(store, "level", .double(0), "<").isEmpty)
            #expect(throws: StrataError.self) { try Self.insert(store, ["level": .double(0)]) }
            // NaN equals nothing, itself included: two NaNs are not duplicates.
            _ = try Self.insert(store, ["level": .double(.nan)])
            _ = try Self.insert(store, ["level": .double(.nan)])
        }
    }

    /// A store written before `strata.terms` carries its strings' terms as they were
    /// typed. Lookups there stay exact: an ASCII value's term is the same in both
    /// encodings; any other string is found by scanning.
    @Test func oldTermsAreNeverTrustedBeyondWhatTheyAnswerExactly() throws {
        let dir = try TemporaryDirectory("exact-legacy")
        defer { dir.remove() }
        let path = dir.appending("Items.strata")
        let model = try Self.model()
        var stored: ObjectID?
        do {
            let store = try ObjectStore(at: path, model: model)
            stored = try Self.insert(store, ["code": .string("cafe\u{301}"), "label": .string("cafe\u{301}")])
            _ = try Self.insert(store, ["code": .string("plain"), "label": .string("plain")])
            try store.close()
        }
        // Rewrite the first record with the terms the old encoding gave it (raw UTF-8)
        // and drop the mark, as a store of the release before.
        let log = try LogStore.open(at: path)
        let key = try #require(stored?.key)
        let record = try #require(try log.get(key))
        var batch = WriteBatch()
        let raw = record.terms.map { term in
            term.value == Array("caf\u{E9}".utf8) ? IndexTerm(index: term.index, value: Array("cafe\u{301}".utf8)) : term
        }
        #expect(raw != record.terms)
        batch.put(key, value: record.value, blobs: record.blobs, terms: raw)
        try log.commit(batch)
        var metadata = log.metadata
        metadata[StoreSchema.termsKey] = nil
        metadata[MetadataDigest.key] = nil  // written before the digest too
        try log.setMetadata(metadata)
        try log.close()

        let store = try ObjectStore(at: path, model: model)
        defer { try? store.close() }
        #expect(!store.exactTerms)
        #expect(try Self.fetch(store, "label", .string("caf\u{E9}")) == [stored])
        #expect(try Self.fetch(store, "label", .string("cafe"), ">").count == 2)
        #expect(try Self.fetch(store, "label", .string("plain")).count == 1)
        let context = store.newContext()
        let twin = try context.insert("Item")
        try twin.setValue(.string("caf\u{E9}"), forKey: "code")
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.context["properties"] == "code")
    }
}
