import ArgumentParser
import Foundation
import Strata

/// `strata create STORE --model MODEL.json`: an empty store for a model.
///
/// Running it again with the same model is a no-op; with another model it fails,
/// naming both version hashes (migrating is a separate step).
struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an empty store for a model file (a no-op when the store exists with the same model)."
    )

    @Argument(help: "The store directory to create.")
    var store: String

    @Option(name: .long, help: "The JSON model file (docs/MODEL.md).")
    var model: String

    @Flag(help: "Track history: every commit keeps an entry that `strata history` prints (the commands keep tracking it).")
    var history = false

    func run() throws {
        try reportingFailures {
            let model = try StoreAccess.loadModelFile(model)
            if let existing = try existingModelHash() {
                guard existing == model.versionHash || opensWithoutMigration(model) else {
                    throw CommandFailure("a store already exists at \(store) with another model (store model hash \(existing), model file hash \(model.versionHash)); nothing was changed")
                }
                print("store \(store) already exists with this model (hash \(model.versionHash)); nothing to do")
                return
            }
            try refuseNonStoreDirectory()
            var options = StoreOptions()
            // The tool moves transformable bytes as they are; it never decodes them.
            options.requiresValueTransformers = false
            options.logger = CLILogging.logger
            options.historyTracking = history
            let created = try ObjectStore(at: store, model: model, options: options)
            try created.close()
            print("created store \(store) for model \(model.versionIdentifier) (hash \(model.versionHash), \(model.entities.count) entities)")
        }
    }

    /// The model hash of a store already at the path; nil when there is none. An
    /// engine-level store with records but no model is refused: a model adopted now
    /// would not describe them.
    private func existingModelHash() throws -> String? {
        guard FileManager.default.fileExists(atPath: store + "/MANIFEST") else { return nil }
        let log = try StoreAccess.openLog(store)
        defer { try? log.close() }
        if let hash = log.metadata[StoreAccess.modelHashKey] {
            return String(decoding: hash, as: UTF8.self)
        }
        if log.count > 0 {
            throw CommandFailure("the store at \(store) holds \(log.count) engine records and no object model; refusing to give it one")
        }
        return nil
    }

    /// Whether the existing store opens with `model` as it is: a store written before
    /// version 2 of the canonical description records its model's version 1 hash, which
    /// the library recognises through the model the store records (docs/MODEL.md,
    /// "Stores written under version 1"). Opened read-only: nothing is written.
    private func opensWithoutMigration(_ model: ObjectModel) -> Bool {
        var options = StoreOptions()
        options.log.readOnly = true
        options.log.createIfMissing = false
        options.logger = CLILogging.logger
        options.requiresValueTransformers = false
        guard let opened = try? ObjectStore(at: store, model: model, options: options) else { return false }
        try? opened.close()
        return true
    }

    /// A path that is a file, or a directory with files of something else, is not
    /// turned into a store.
    private func refuseNonStoreDirectory() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: store, isDirectory: &isDirectory) else { return }
        guard isDirectory.boolValue else { throw CommandFailure.usage("\(store) exists and is not a directory") }
        if FileManager.default.fileExists(atPath: store + "/MANIFEST") { return }
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: store)) ?? []
        let known: Set<String> = ["segments", "blobs", "index", "LOCK"]
        if let stranger = contents.first(where: { !known.contains($0) }) {
            throw CommandFailure.usage("\(store) is a directory that is not a Strata store (it holds \(stranger)); choose a new or empty directory")
        }
    }
}
