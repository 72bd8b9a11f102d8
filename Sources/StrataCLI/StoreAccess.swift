import Foundation
import Strata

/// Opening stores from the command line: the object commands read the store's own
/// model from its metadata (`strata.model`), so only `create` needs a model file.
enum StoreAccess {
    /// The store's engine, opened read-only; a usage failure when there is no store.
    static func openLog(_ path: String) throws -> LogStore {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure.usage("no store at \(path): the directory does not exist (create one with `strata create \(path) --model MODEL.json`)")
        }
        guard isDirectory.boolValue else {
            throw CommandFailure.usage("no store at \(path): it is a file, not a store directory")
        }
        var options = LogStoreOptions()
        options.readOnly = true
        options.createIfMissing = false
        // `verify` rebuilds each index file to compare it: through sorters that spill
        // to the temporary directory, not in memory (the store itself is not written).
        options.scratchDirectory = FileManager.default.temporaryDirectory.path
        do {
            return try LogStore.open(at: path, options: options, logger: CLILogging.logger)
        } catch StrataError.Code.notFound {
            throw CommandFailure.usage("no store at \(path): the directory holds no MANIFEST")
        }
    }

    /// The model recorded in the store's metadata, nil when the store has none (an
    /// engine-level store such as `strata demo` writes).
    static func storedModel(of log: LogStore) throws -> ObjectModel? {
        guard let json = log.metadata[modelKey] else { return nil }
        do {
            return try ObjectModel(jsonData: Data(json))
        } catch {
            throw CommandFailure("the model recorded in the store at \(log.path) does not load: \(error)")
        }
    }

    /// The store's model, nil for a store of engine records only.
    static func storedModelIfAny(at path: String) throws -> ObjectModel? {
        let log = try openLog(path)
        defer { try? log.close() }
        return try storedModel(of: log)
    }

    /// The store's model, or a usage failure that says how to give it one.
    static func requireModel(at path: String) throws -> ObjectModel {
        let log = try openLog(path)
        defer { try? log.close() }
        guard let model = try storedModel(of: log) else {
            throw CommandFailure.usage("the store at \(path) has no object model (it holds engine records only); create an object store with `strata create STORE --model MODEL.json`")
        }
        return model
    }

    /// Opens the object store at `path` with its own model.
    static func openObjectStore(_ path: String, readOnly: Bool, configure: (inout StoreOptions) -> Void = { _ in }) throws -> ObjectStore {
        let model = try requireModel(at: path)
        var options = StoreOptions()
        // A store that tracks history keeps tracking it (opened without, it would drop
        // it), and keeps all of it: the retention is the application's to apply.
        options.historyTracking = try {
            let log = try openLog(path)
            defer { try? log.close() }
            return try ObjectStore.historyIsTracked(in: log)
        }()
        options.historyRetention = .unbounded
        options.log.readOnly = readOnly
        options.log.createIfMissing = false
        options.logger = CLILogging.logger
        // Transformable values are exported and imported as the bytes the store holds,
        // so a transformer the tool cannot know of must not keep it from opening.
        options.requiresValueTransformers = false
        configure(&options)
        return try ObjectStore(at: path, model: model, options: options)
    }

    /// Loads a model file, with the library's own message when it is not a model.
    static func loadModelFile(_ path: String) throws -> ObjectModel {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure.usage("cannot read the model file \(path): no such file")
        }
        do {
            return try ObjectModel(contentsOf: URL(fileURLWithPath: path))
        } catch let error as StrataError {
            throw CommandFailure.usage("the model file \(path) is not a valid model: \(error.message)")
        }
    }

    /// The metadata key of the model's JSON (the object layer's `StoreSchema.modelKey`).
    static let modelKey = "strata.model"
    /// The metadata key of the model's version hash.
    static let modelHashKey = "strata.modelHash"
}
