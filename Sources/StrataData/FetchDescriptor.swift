import Foundation

/// What to fetch, as SwiftData's `FetchDescriptor`: Foundation's `#Predicate` and
/// `SortDescriptor`, a limit and an offset.
///
/// ```swift
/// var request = FetchDescriptor<Employee>(
///     predicate: #Predicate { $0.salary >= 100 && $0.department?.name == "Sales" },
///     sortBy: [SortDescriptor(\.name)])
/// request.fetchLimit = 20
/// let page = try context.fetch(request)
/// ```
///
/// The predicate is translated into Strata's `Predicate` when the fetch runs, so
/// indexes and the query planner serve it; a part that cannot be translated is an
/// `untranslatablePredicate` error naming it, never a filter run over every object.
public struct FetchDescriptor<T: PersistentModel> {
    /// Which models to fetch; nil for all.
    public var predicate: Foundation.Predicate<T>?
    /// The order, first descriptor first; string keys compare as Swift strings do
    /// (`.lexical`), numbers and dates by value.
    public var sortBy: [SortDescriptor<T>]
    /// The most models to return; nil for no limit.
    public var fetchLimit: Int?
    /// How many matches to skip first.
    public var fetchOffset: Int?
    /// Whether unsaved inserts and changes of the context count. Default `true`.
    public var includePendingChanges: Bool = true
    /// The properties to load up front (others load when read); empty for all.
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Relationships whose destinations the caller will read. Strata's faults already
    /// fire in batches of the store's `faultBatchSize`, so this is accepted and used only
    /// to check the key paths.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    /// A descriptor with a predicate and an order.
    public init(predicate: Foundation.Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }

    /// The untyped request this descriptor stands for.
    ///
    /// - Throws: `untranslatablePredicate` naming the part of the predicate or sort that
    ///   Strata cannot run in the store; `unknownKeyPath` for a key path of no property.
    public func fetchRequest(schema: Schema) throws -> FetchRequest {
        var request = FetchRequest(entityName: T.entityName)
        if let predicate {
            request.predicate = try PredicateTranslator(schema: schema, entity: T.entityName).translate(predicate)
        }
        request.sortKeys = try sortBy.map { try sortKey($0, schema: schema) }
        request.fetchLimit = fetchLimit
        request.fetchOffset = max(0, fetchOffset ?? 0)
        request.includesPendingChanges = includePendingChanges
        if !propertiesToFetch.isEmpty {
            request.propertiesToFetch = try propertiesToFetch.map { try schema.propertyName(of: $0, in: T.entityName) }
        }
        for keyPath in relationshipKeyPathsForPrefetching { _ = try schema.propertyName(of: keyPath, in: T.entityName) }
        return request
    }

    private func sortKey(_ descriptor: SortDescriptor<T>, schema: Schema) throws -> SortKey {
        guard let keyPath = descriptor.keyPath else {
            throw StrataError(.untranslatablePredicate, "a SortDescriptor of \(T.entityName) without a key path (a custom comparator) cannot sort in the store", context: ["entity": T.entityName])
        }
        return SortKey(try schema.propertyName(of: keyPath, in: T.entityName), ascending: descriptor.order == .forward)
    }
}
