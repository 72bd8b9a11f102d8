/// What to fetch: an entity, an optional predicate, sort keys, a window, and how.
///
/// ```swift
/// var request = FetchRequest(entityName: "Employee")
/// request.predicate = try Predicate(format: "salary > %@ AND department.name == 'Sales'", 50_000)
/// request.sortKeys = [.ascending("name")]
/// request.fetchLimit = 20
/// let employees = try context.fetch(request)   // faults; reading `name` reads no photo bytes
/// ```
public struct FetchRequest: Sendable {
    /// The entity to fetch (and, unless `includesSubentities` is false, its sub-entities).
    public var entityName: String
    /// Which objects match; nil matches all. Checked against the entity: a misspelt key path throws `.unknownKeyPath`.
    public var predicate: Predicate?
    /// Sort keys, most significant first; ties keep key (insertion) order, so sorting is stable.
    public var sortKeys: [SortKey] = []
    /// At most this many results (after the offset); nil for no limit. Unlike Core
    /// Data, where 0 means no limit, 0 here means none: nil already says "no limit".
    public var fetchLimit: Int?
    /// How many results to skip first (negative counts as 0).
    public var fetchOffset = 0
    /// How many sibling faults fire together when one is read (0: the store's default):
    /// the results are cut into runs of this many, and reading one loads its run,
    /// siblings before it included.
    public var fetchBatchSize = 0
    /// Whether instances of sub-entities are included (default yes, as Core Data).
    public var includesSubentities = true
    /// Whether this context's unsaved inserts, updates and deletes count (default yes):
    /// unsaved inserts can match, unsaved deletes cannot, and unsaved updates are
    /// judged by their new values. With `false` the predicate and sort keys see the
    /// store only (an unsaved delete can still match, an update is judged by its
    /// stored values); the objects returned are still this context's.
    public var includesPendingChanges = true
    /// Partial faulting: the returned objects have these properties (attributes or
    /// to-one relationships) loaded — they are not faults — and hold nothing else of
    /// their records; reading any other stored property loads the whole record (with
    /// a batch of its partially loaded siblings). Objects already loaded or changed in
    /// the context stay as they are. Nil returns faults that load whole records when
    /// first read. External binaries are never read by the fetch either way. For
    /// ``ObjectContext/fetchDictionaries(_:)``, the properties each result holds.
    public var propertiesToFetch: [String]?

    /// A request for an entity, optionally filtered and sorted.
    public init(entityName: String, predicate: Predicate? = nil, sortKeys: [SortKey] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortKeys = sortKeys
    }
}
