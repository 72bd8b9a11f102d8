import Foundation
import Logging
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog

/// `deleteStoreIfMigrationNeeded` (Realm's
/// `deleteRealmIfMigrationNeeded`) replaces an incompatible store with an empty one —
/// only the store's own files, only under its write lock, always logged — and is
/// never the default.
@Suite struct DeleteStoreIfMigrationNeededTests {
    static func options(_ logger: Logger) -> StoreOptions {
        var options = StoreOptions()
        options.deleteStoreIfMigrationNeeded = true
        options.logger = logger
        return options
    }

    /// A v1 store of five employees with external photos (so blob files hold data),
    /// and files of the user's own beside and inside it.
    static func seed(_ path: String, _ v1: ObjectModel) throws {
        try StoreMetadataTests.seed(path, v1)
        try FileBytes.write(Array("mine".utf8), to: path + "/notes.txt")
        try FileBytes.write(Array("also mine".utf8), to: path + "/segments/README")
    }

    @Test func anIncompatibleStoreIsReplacedByAnEmptyOneAndTheReplacementIsLogged() throws {
        let dir = try TemporaryDirectory("delete-if-needed")
        defer { dir.remove() }
        let (v1, v2) = try StoreMetadataTests.models()
        try Self.seed(dir.path, v1)
        let oldIdentifier = try ObjectStore.metadata(at: dir.path).storeIdentifier
        let oldFiles = try DirectorySnapshot(dir.path).files.keys.filter { $0.hasPrefix("segments/0") || $0.hasPrefix("blobs/0") }
        #expect(oldFiles.count >= 2)

        let (logger, log) = RecordingLogHandler.logger()
        do {
            let store = try ObjectStore(at: dir.path, model: v2, options: Self.options(logger))
            let context = store.newContext()
            #expect(try context.fetch(FetchRequest(entityName: "Employee")).isEmpty)
            #expect(try context.fetch(FetchRequest(entityName: "Department")).isEmpty)
            let ada = try context.insert("Employee")
            try ada.setValue("Ada", forKey: "name")
            try ada.setValue("ada@example.com", forKey: "email")
            try context.save()
            #expect(try store.verify().isSound)
            try store.close()
        }
        let warnings = log.all.filter { $0.level == .warning }
        let warning = try #require(warnings.first { $0.message.contains("deleteStoreIfMigrationNeeded") })
        #expect(warning.metadata["storeVersion"] == "staff-1" && warning.metadata["modelVersion"] == "staff-2")
        #expect(warning.metadata["storeHash"] == v1.versionHash && warning.metadata["modelHash"] == v2.versionHash)

        // The user's files are untouched; the old store's files are gone.
        #expect(try FileBytes.read(dir.appending("notes.txt")) == Array("mine".utf8))
        #expect(try FileBytes.read(dir.appending("segments/README")) == Array("also mine".utf8))
        let now = try DirectorySnapshot(dir.path).files.keys
        for file in oldFiles { #expect(!now.contains(file), "\(file) was the old store's") }
        // A new store: a new identity, the new model recorded.
        let metadata = try ObjectStore.metadata(at: dir.path)
        #expect(metadata.storeIdentifier != oldIdentifier)
        #expect(metadata.versionHash == v2.versionHash)

        // It reopens as a plain v2 store with what was saved after the replacement.
        let store = try ObjectStore(at: dir.path, model: v2)
        let context = store.newContext()
        let employees = try context.fetch(FetchRequest(entityName: "Employee"))
        #expect(try employees.map { try $0.string("email") } == ["ada@example.com"])
        #expect(try store.verify().isSound)
        try store.close()
    }

    @Test func aCompatibleStoreKeepsEverything() throws {
        let dir = try TemporaryDirectory("delete-if-needed-compatible")
        defer { dir.remove() }
        let (v1, _) = try StoreMetadataTests.models()
        try Self.seed(dir.path, v1)
        let (logger, log) = RecordingLogHandler.logger()
        let store = try ObjectStore(at: dir.path, model: v1, options: Self.options(logger))
        #expect(try store.newContext().fetch(FetchRequest(entityName: "Employee")).count == 5)
        try store.close()
        #expect(!log.all.contains { $0.level == .warning })
    }

    @Test func withoutTheOptionOrWithAMigrationOrWhileLockedNothingIsDeleted() throws {
        let dir = try TemporaryDirectory("delete-if-needed-refused")
        defer { dir.remove() }
        let (v1, v2) = try StoreMetadataTests.models()
        try Self.seed(dir.path, v1)
        let before = try DirectorySnapshot(dir.path)
        #expect(StoreOptions().deleteStoreIfMigrationNeeded == false, "never the default")
        expectCode(.incompatibleModel) { _ = try ObjectStore(at: dir.path, model: v2) }
        #expect(try DirectorySnapshot(dir.path) == before)

        var both = Self.options(.quiet)
        both.migration = .inferred
        expectCode(.invalidArgument) { _ = try ObjectStore(at: dir.path, model: v2, options: both) }
        #expect(try DirectorySnapshot(dir.path) == before)

        // Another open holds the write lock: nothing may be deleted under it.
        let holder = try ObjectStore(at: dir.path, model: v1)
        expectCode(.storeLocked) { _ = try ObjectStore(at: dir.path, model: v2, options: Self.options(.quiet)) }
        #expect(try holder.newContext().fetch(FetchRequest(entityName: "Employee")).count == 5)
        try holder.close()
        #expect(try DirectorySnapshot(dir.path) == before)
    }

    @Test func theEngineReplacementKeepsOnlyTheNewStoreAfterEachStep() throws {
        // The engine alone: the empty store opens, and a store directory with the old
        // files still present (a crash after the manifest rename) opens empty too.
        let dir = try TemporaryDirectory("delete-engine")
        defer { dir.remove() }
        let (v1, _) = try StoreMetadataTests.models()
        try Self.seed(dir.path, v1)
        let copy = dir.appending("copy")
        let log = try LogStore.open(at: dir.path)
        let oldSegments = try FileManager.default.contentsOfDirectory(atPath: dir.appending("segments")).filter { $0.hasSuffix(".seg") }
        try FileManager.default.createDirectory(atPath: copy + "/segments", withIntermediateDirectories: true)
        for name in oldSegments { try FileManager.default.copyItem(atPath: dir.appending("segments/" + name), toPath: copy + "/segments/" + name) }
        let empty = try log.replaceWithEmptyStore()
        #expect(empty.count == 0 && empty.metadata.isEmpty)
        try empty.close()
        // Put the old segments back, as a crash between the rename and the deletes leaves them.
        for name in oldSegments { try FileManager.default.copyItem(atPath: copy + "/segments/" + name, toPath: dir.appending("segments/" + name)) }
        let reopened = try LogStore.open(at: dir.path, logger: .quiet)
        #expect(reopened.count == 0)
        try reopened.close()
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.appending("segments"))
        #expect(Set(left).isDisjoint(with: oldSegments), "leftovers of the old store are removed at open")
    }
}
