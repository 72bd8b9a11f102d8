import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog

/// Store-level helpers for the lightweight-migration tests (scenario 2 and the list of
/// inferred changes): create a store at one model, migrate it on open, check every object
/// after the migration and again after a plain reopen, and check that a refusal wrote
/// nothing. Stores are the store type under test (``StoreUnderTest``).
enum InferredStore {
    /// Creates a store at `path` with `model`, fills it in one save and closes it.
    static func create(at path: String, model: ObjectModel, fill: (ObjectContext) throws -> Void) throws {
        let store = try StoreUnderTest.open(at: path, model: model)
        let context = store.newContext()
        try fill(context)
        try context.save()
        try store.close()
    }

    /// Options asking for `migration`, in batches of 2 so a handful of objects spans
    /// several batches.
    static func options(_ migration: StoreMigration) -> StoreOptions {
        var options = StoreOptions()
        options.migration = migration
        options.migrationBatchSize = 2
        return options
    }

    /// Opens `path` at `model` with `migration` (the store migrates before the open
    /// returns), runs `check` on a fresh context, expects a sound store; then reopens
    /// with `model` and no migration (the new hash was recorded), runs `check` again
    /// and expects a sound store once more.
    static func migrate(
        at path: String, to model: ObjectModel, with migration: StoreMigration = .inferred,
        sourceLocation: SourceLocation = #_sourceLocation,
        check: (ObjectContext) throws -> Void
    ) throws {
        do {
            let store = try StoreUnderTest.open(at: path, model: model, options: options(migration))
            try check(store.newContext())
            #expect(try store.verify().isSound, sourceLocation: sourceLocation)
            try store.close()
        }
        let store = try StoreUnderTest.open(at: path, model: model)
        try check(store.newContext())
        #expect(try store.verify().isSound, sourceLocation: sourceLocation)
        try store.close()
    }

    /// The top-level names in a directory, to see that no staging directory was left
    /// (``DirectorySnapshot`` lists files only).
    static func entries(_ path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    /// Expects opening the store at `path` with `model` and `migration` to be refused
    /// with `migrationInferenceRefused` listing exactly `problems` (each in the message too), the
    /// directory unchanged byte for byte; then the store still opens at `old` and
    /// `check` passes on it.
    @discardableResult
    static func expectRefusal(
        at path: String, from old: ObjectModel, to model: ObjectModel, with migration: StoreMigration = .inferred,
        problems expected: [String], sourceLocation: SourceLocation = #_sourceLocation,
        check: (ObjectContext) throws -> Void
    ) throws -> StrataError? {
        let before = try DirectorySnapshot(path)
        let entriesBefore = try entries(path)
        let digestBefore = try StoreUnderTest.serverDigest(at: path)
        let error = #expect(throws: StrataError.self, sourceLocation: sourceLocation) {
            _ = try StoreUnderTest.open(at: path, model: model, options: options(migration))
        }
        #expect(error?.code == .migrationInferenceRefused, "\(String(describing: error))", sourceLocation: sourceLocation)
        let listed = error?.context["problems"]?.split(separator: "\n").map(String.init) ?? []
        #expect(listed == expected, "\(String(describing: error))", sourceLocation: sourceLocation)
        for problem in expected {
            #expect(error?.message.contains(problem) == true, "\(String(describing: error?.message))", sourceLocation: sourceLocation)
        }
        #expect(error?.message.contains("nothing was written") == true, sourceLocation: sourceLocation)
        #expect(try DirectorySnapshot(path) == before, "a refused migration wrote nothing", sourceLocation: sourceLocation)
        #expect(try entries(path) == entriesBefore, "no staging left", sourceLocation: sourceLocation)
        #expect(try StoreUnderTest.serverDigest(at: path) == digestBefore, "a refused migration wrote nothing", sourceLocation: sourceLocation)
        let store = try StoreUnderTest.open(at: path, model: old)
        try check(store.newContext())
        #expect(try store.verify().isSound, sourceLocation: sourceLocation)
        try store.close()
        return error
    }
}

extension ObjectContext {
    /// Every object of `entity` (sub-entities included), by the string in `key`;
    /// records an issue when two objects share a key.
    func keyedObjects(_ entity: String, by key: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: ManagedObject] {
        var result: [String: ManagedObject] = [:]
        for object in try fetch(FetchRequest(entityName: entity)) {
            let name = try object.string(key) ?? "<nil>"
            #expect(result[name] == nil, "two \(entity) objects with \(key) '\(name)'", sourceLocation: sourceLocation)
            result[name] = object
        }
        return result
    }
}
