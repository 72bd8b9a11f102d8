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
    public enum ResultType: Sendable {
        case objects
        case objectIDs
        case count
    }

    public var entityName: String
    public var predicate: Predicate?
    /// Sort keys, most significant first; ties keep key (insertion) order, so sorting is stable.
    public var sortKeys: [SortKey] = []
    public var fetchLimit: Int?
    public var fetchOffset = 0
    /// How many sibling faults fire together when one is read (0: the store's default).
    public var fetchBatchSize = 0
    /// Whether instances of sub-entities are included (default yes, as Core Data).
    public var includesSubentities = true
    /// Whether this context's unsaved inserts, updates and deletes count (default yes).
    public var includesPendingChanges = true
    /// Partial faulting: load only these properties into the returned objects (the
    /// others load when first read). Nil loads whole records lazily as faults.
    public var propertiesToFetch: [String]?
    public var resultType: ResultType = .objects

    public init(entityName: String, predicate: Predicate? = nil, sortKeys: [SortKey] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortKeys = sortKeys
    }
}
