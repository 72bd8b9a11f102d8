import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// Indexes and uniqueness are part of a store's schema, and stores that record
/// version 1 of the model hash, which leaves them out, keep opening with their models.
@Suite("Store model hash")
struct StoreModelHashTests {
    static func model(unique: Bool = false, indexed: Bool = false, version: String = "1") throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Account") {
                Attribute("email", .string, indexed: indexed, unique: unique)
                Attribute("credit", .int64, default: .int(0))
            }
        }
    }

    static func seed(_ path: String, model: ObjectModel, emails: [String]) throws {
        let store = try ObjectStore(at: path, model: model)
        let context = store.newContext()
        for email in emails {
            let account = try context.insert("Account")
            try account.setValue(email, forKey: "email")
        }
        try context.save()
        try store.close()
    }

    /// A store created without `unique` and reopened with `unique: true` would take a
    /// duplicate if it opened: it must refuse to open instead.
    @Test func aNewUniqueConstraintIsAModelChange() throws {
        let dir = try TemporaryDirectory("hash-unique")
        defer { dir.remove() }
        let path = dir.appending("Accounts.strata")
        let plain = try Self.model()
        try Self.seed(path, model: plain, emails: ["ann@example.com"])
        let before = try DirectorySnapshot(path)

        let unique = try Self.model(unique: true)
        let error = #expect(throws: StrataError.self) { try ObjectStore(at: path, model: unique) }
        #expect(error?.code == .incompatibleModel)
        #expect(error?.context["storeHash"] == plain.versionHash)
        #expect(error?.context["modelHash"] == unique.versionHash)
        #expect(try DirectorySnapshot(path) == before)

        // An index alone is a model change too.
        let indexed = try Self.model(indexed: true)
        let indexError = #expect(throws: StrataError.self) { try ObjectStore(at: path, model: indexed) }
        #expect(indexError?.code == .incompatibleModel)
        #expect(try DirectorySnapshot(path) == before)

        // And the store still holds one object, and opens with its own model.
        let store = try ObjectStore(at: path, model: plain)
        defer { try? store.close() }
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Account")) == 1)
    }

    /// Makes a store look as a release before version 2 of the canonical description
    /// left it: the same records and recorded model, under the version 1 hash.
    static func makeLegacy(_ path: String, model: ObjectModel) throws {
        let log = try LogStore.open(at: path)
        var metadata = log.metadata
        metadata[StoreSchema.modelHashKey] = Array(model.legacyVersionHash.utf8)
        metadata[StoreSchema.termsKey] = nil
        try log.setMetadata(metadata)
        try log.close()
    }

    static func recordedHash(_ path: String) throws -> String? {
        let log = try LogStore.open(at: path)
        defer { try? log.close() }
        return log.metadata[StoreSchema.modelHashKey].map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func aStoreWrittenUnderVersionOneOpensWithItsModelAndIsUpgraded() throws {
        let dir = try TemporaryDirectory("hash-legacy")
        defer { dir.remove() }
        let path = dir.appending("Accounts.strata")
        let model = try Self.model(unique: true)
        try Self.seed(path, model: model, emails: ["ann@example.com", "bob@example.com"])
        try Self.makeLegacy(path, model: model)
        #expect(try Self.recordedHash(path) == model.legacyVersionHash)

        let store = try ObjectStore(at: path, model: model)
        let context = store.newContext()
        #expect(try context.count(for: FetchRequest(entityName: "Account")) == 2)
        // The uniqueness constraint the old store had still holds.
        let twin = try context.insert("Account")
        try twin.setValue("ann@example.com", forKey: "email")
        #expect(throws: StrataError.self) { try context.save() }
        try store.close()
        // Opening wrote the version 2 hash; the next open needs no recorded model.
        #expect(try Self.recordedHash(path) == model.versionHash)
    }

    @Test func aStoreWrittenUnderVersionOneRefusesAModelWithOtherIndexes() throws {
        let dir = try TemporaryDirectory("hash-legacy-other")
        defer { dir.remove() }
        let path = dir.appending("Accounts.strata")
        let plain = try Self.model()
        try Self.seed(path, model: plain, emails: ["ann@example.com", "ann@example.com"])
        try Self.makeLegacy(path, model: plain)
        let before = try DirectorySnapshot(path)
        // Same version 1 hash, but the store's recorded model has no unique: refused.
        let unique = try Self.model(unique: true)
        #expect(unique.legacyVersionHash == plain.legacyVersionHash)
        let error = #expect(throws: StrataError.self) { try ObjectStore(at: path, model: unique) }
        #expect(error?.code == .incompatibleModel)
        #expect(error?.context["storeHash"] == plain.legacyVersionHash)
        #expect(error?.context["modelHash"] == unique.versionHash)
        #expect(try DirectorySnapshot(path) == before)
    }

    @Test func everyCommittedFixtureStoreOpensWithItsModelWithoutMigration() throws {
        for folder in FixtureStore.formatFolders {
            for name in FixtureStore.models.keys.sorted() {
                let fixture = FixtureStore(folder: folder, name: name)
                let model = try ObjectModel(contentsOf: fixture.modelURL)
                try fixture.withCopy { path in
                    // Stores of format 2 and before were written when the model hash was
                    // version 1; format 3's record the current hash.
                    let written = (FixtureStore.formatVersion(ofFolder: folder) ?? 0) >= 3 ? model.versionHash : model.legacyVersionHash
                    #expect(try Self.recordedHash(path) == written, "\(fixture)")
                    let store = try ObjectStore(at: path, model: model)
                    #expect(store.exactTerms, "\(fixture): its terms need no rewrite")
                    try store.close()
                    #expect(try Self.recordedHash(path) == model.versionHash, "\(fixture)")
                }
            }
        }
    }
}
