import StrataLog

extension ObjectStore {
    /// Reads the model a store records, without opening it: one read of its MANIFEST
    /// through the engine (`LogStore.readManifest(at:fileSystem:)`). No lock is taken,
    /// nothing is migrated, recovered or written, so it works while another process has
    /// the store open, and leaves the directory byte for byte as it was.
    ///
    /// ```swift
    /// let metadata = try ObjectStore.metadata(at: "/var/lib/app/Employees.strata")
    /// metadata.versionIdentifier          // "2"
    /// metadata.entity(named: "Employee")?.persistentAttributeCount   // 4
    /// v3.isCompatible(withStoreMetadata: metadata)                   // false: migrate
    /// ```
    ///
    /// - Throws: `.notFound` when the directory holds no store; `.unsupportedFormat`;
    ///   `.corrupt` for a damaged manifest; `.invalidModel` when the recorded model does
    ///   not read.
    public static func metadata(at path: String) throws -> StoreMetadata {
        try StoreMetadata(summary: try LogStore.readManifest(at: path), path: path)
    }
}

extension ObjectStore {
    /// `deleteStoreIfMigrationNeeded`: the store (opened, so its write lock is held)
    /// records another model; say so loudly and start over with an empty store.
    static func replaceWithEmptyStore(_ records: any RecordStore, path: String, storedHash: String, model: ObjectModel,
                                      options: StoreOptions) throws -> any RecordStore {
        guard let log = records as? LogStore else {
            throw StrataError(.invalidArgument, "this store type cannot be replaced", path: path)
        }
        let storedVersion = (try? storedModel(in: records))??.versionIdentifier ?? "unknown"
        options.logger.warning("the store was written with another model; deleting its objects and starting empty (deleteStoreIfMigrationNeeded)", metadata: [
            "path": "\(path)", "storeVersion": "\(storedVersion)", "storeHash": "\(storedHash)",
            "modelVersion": "\(model.versionIdentifier)", "modelHash": "\(model.versionHash)", "records": "\(log.count)",
        ])
        return try log.replaceWithEmptyStore()
    }
}
