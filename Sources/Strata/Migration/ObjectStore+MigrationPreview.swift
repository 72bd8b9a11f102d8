import Foundation
import StrataLog

extension ObjectStore {
    /// What an inferred migration of the store at `path` to `model` would do, without
    /// changing the store: every entity and property added, renamed, retyped or
    /// removed, and for each removal how many stored values it discards and their bytes.
    /// The counts come from streaming the records of the entities concerned, a batch
    /// at a time. `strata migrate --dry-run` prints it, and `strata migrate` refuses a
    /// migration that discards values unless given `--allow-data-loss`.
    ///
    /// ```swift
    /// let preview = try ObjectStore.previewMigration(at: path, to: v2)
    /// for change in preview.dataLoss { print(change) }
    /// // Employee.photo: attribute removed, discards 30 values (1234567 bytes)
    /// ```
    ///
    /// The store is opened read-only (another process may be writing it; the preview
    /// then sees the last committed transaction).
    ///
    /// - Throws: `.notFound` when there is no store; `.migrationFailed` when the store
    ///   does not record its model; the refusal of ``MappingModel/inferred(from:to:)``,
    ///   naming each `Entity.property`, when the migration cannot be inferred.
    public static func previewMigration(at path: String, to model: ObjectModel, options: StoreOptions = StoreOptions()) throws -> MigrationPreview {
        var logOptions = options.log
        logOptions.readOnly = true
        logOptions.createIfMissing = false
        let log = try LogStore.open(at: path, options: logOptions, logger: options.logger)
        defer { try? log.close() }
        guard let sourceModel = try storedModel(in: log) else {
            throw StrataError(.migrationFailed, "the store does not record the model it was written with; it cannot be migrated", path: path)
        }
        let mapping = try MappingModel.inferred(from: sourceModel, to: model)
        let schema = try storedSchema(in: log, model: sourceModel)
        return try MigrationPreviewer(mapping: mapping, source: sourceModel, destination: model, records: log, schema: schema).preview()
    }
}
