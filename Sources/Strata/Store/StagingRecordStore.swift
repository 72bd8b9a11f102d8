import StrataLog

/// A store type whose migrations may rewrite it. A migration stage that cannot run in
/// place streams the new version of every object into a staging store of the same
/// type; only when every stage has succeeded does the last staging store replace the
/// store's contents, in one atomic step. An error or a crash before that step leaves
/// the store as it was, readable with its old model.
///
/// The segment log stages into a directory inside the store and swaps at one manifest
/// rename; a store type on a database server stages into tables of its own and swaps
/// them in one transaction. A store type that does not conform runs in-place stages
/// only (metadata, index builds), and refuses a stage that must rewrite.
package protocol StagingRecordStore: RecordStore {
    /// An empty store of this type for a migration to fill. It shares this store's id
    /// and may reference this store's blobs, so that blobs are carried into it by
    /// reference, never copied. A staging store may make one of its own (a staged
    /// plan's next stage reads the previous one's). A leftover of an earlier migration
    /// that never finished is discarded first. Nothing of this store changes.
    ///
    /// - Parameter overlayEntryLimit: how many written keys the staging store may hold
    ///   in memory before it writes them out (the migration's memory budget); nil
    ///   leaves it to the store type.
    func stagingStore(overlayEntryLimit: Int?) throws -> any StagingRecordStore

    /// Replaces this store's contents with `staging`'s — a staging store made from
    /// this one, or from one of its staging stores — in one atomic step: the records,
    /// index terms, blob references and metadata become `staging`'s, blobs stay
    /// where they are, and sequences never go back. A store type that other processes
    /// write refuses, with the store as it was, when one of them committed after the
    /// staging began (a commit the staging store does not hold would be lost); the
    /// segment log has no other writer.
    func adopt(staging: any StagingRecordStore) throws

    /// The store to use after ``adopt(staging:)`` and after the migration closed its
    /// staging stores: this one, or the same store opened again.
    func reopenedAfterAdopting() throws -> any RecordStore

    /// Deletes every staging store made from this one, after a failed migration (close
    /// them first). This store is untouched.
    func discardStagingStores()

    /// A new, empty scratch file, deleted with this staging store (a migration's
    /// maps of old keys to new ones spill into such files).
    func scratchFile(named name: String) throws -> any StorageFile
}

extension LogStore: StagingRecordStore {
    package func stagingStore(overlayEntryLimit: Int?) throws -> any StagingRecordStore {
        try makeStagingStore(overlayEntryLimit: overlayEntryLimit)
    }

    /// Swaps at the manifest rename (`adoptStaging(_:)`), which closes this store.
    /// One process writes a segment-log store, and a migration holds it throughout.
    package func adopt(staging: any StagingRecordStore) throws {
        guard let staging = staging as? LogStore else {
            throw StrataError(.invalidArgument, "a staging store of another store type cannot replace a segment-log store", path: path)
        }
        try adoptStaging(staging)
    }

    /// The store opened again at its path: ``adopt(staging:)`` closed it.
    package func reopenedAfterAdopting() throws -> any RecordStore {
        try LogStore.open(at: path, options: options, fileSystem: fileSystem, logger: logger)
    }

    package func discardStagingStores() {
        discardStaging()
    }

    package func scratchFile(named name: String) throws -> any StorageFile {
        try createScratchFile(name)
    }
}
