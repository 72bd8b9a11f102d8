import StrataLog

/// How a migration shares out ``StoreOptions/migrationMemoryBudget``. The budget covers
/// everything the migration holds that grows with its work, not only its objects:
///
/// - the block cache, which the store and its staging store share: a quarter of the
///   budget (or `LogStoreOptions.blockCacheBytes` when smaller) while the stages run
///   (less would not hold a small store, and each of a photo split's three passes
///   would read it again from the files);
/// - the staging store's overlay (the keys written since its last seal, about 256
///   bytes each with their terms): an eighth, as a limit on its entries;
/// - objects in flight, source and destination, at about 8 KiB each: the rest, which
///   sets the batch size (unless ``StoreOptions/migrationBatchSize`` sets it).
///
/// The cache and the overlay fill up as the store grows: left on top of a batch that
/// took the whole budget, they would put a large migration's peak well above the
/// budget, and higher the larger the store.
struct MigrationBudget {
    /// Heap an object in flight costs, about: its source and destination objects with
    /// their values, its encoded record and its share of the batch's commit.
    static let bytesPerObject = 8 << 10
    /// Heap a staging overlay entry costs with its terms, about.
    static let bytesPerOverlayEntry = 256

    /// What the shared block cache may hold while the migration runs.
    let cacheBytes: Int
    /// How many keys the staging store's overlay holds before it seals a segment.
    let stagingOverlayEntries: Int
    /// Objects per batch.
    let batch: Int

    init(_ options: StoreOptions) {
        let budget = max(0, options.migrationMemoryBudget)
        cacheBytes = min(options.log.blockCacheBytes, budget / 4)
        stagingOverlayEntries = max(1024, min(options.log.overlayEntryLimit, budget / 8 / Self.bytesPerOverlayEntry))
        let objects = budget - cacheBytes - stagingOverlayEntries * Self.bytesPerOverlayEntry
        batch = options.migrationBatchSize ?? max(16, min(50_000, objects / Self.bytesPerObject))
    }
}
