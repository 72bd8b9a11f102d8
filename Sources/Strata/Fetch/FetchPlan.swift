/// How a fetch request runs, as SQLite's `EXPLAIN QUERY PLAN` tells: where its
/// candidates come from, how they are judged, and how the matches are ordered.
/// ``FetchRequest/explain(in:)`` returns one; its `description` is the text.
///
/// ```swift
/// var request = FetchRequest(entityName: "Employee", predicate: try Predicate(format: "departmentID == 7"))
/// request.sortKeys = [.descending("salary")]
/// request.fetchLimit = 20
/// print(try request.explain(in: context))
/// // SEARCH Employee USING INDEX (departmentID == 7)
/// // FILTER ON RECORDS (compiled)
/// // ORDER BY salary DESC: TOP 20 (bounded heap)
/// ```
public struct FetchPlan: Sendable, Hashable, CustomStringConvertible {
    /// Where the candidates come from.
    package enum Access: Sendable, Hashable {
        /// The entity's keys, read from the index of keys: no record is read (no
        /// predicate and no sort keys).
        case keys
        /// Every object of the entity (and its sub-entities): a scan.
        case scan
        /// The objects an index lists for these `AND`-ed conditions of the predicate.
        case index(conditions: [String])
        /// The first sort key's index walked in sort order, stopping once the top
        /// rows are settled (sort keys and a limit, no other index serving the
        /// predicate). Should the walk not settle them (an optional attribute whose
        /// nulls may be wanted, a commit between its pages), the entity is scanned.
        case indexOrder(attribute: String, descending: Bool)
    }

    /// How candidates are judged.
    package enum Filter: Sendable, Hashable {
        /// Not at all: no predicate and no sort keys.
        case none
        /// On records: the predicate and sort keys compiled to field numbers, a
        /// managed object made only for a result.
        case records
        /// On managed objects, one per candidate, for the reason given (a key path
        /// through a relationship, a transient attribute, …).
        case objects(reason: String)
    }

    /// How the matches are put in order.
    package enum Order: Sendable, Hashable {
        /// Key (insertion) order; `stopsAfter` matches when there is a limit.
        case keyOrder(stopsAfter: Int?)
        /// The best `count` kept in a bounded heap while judging (sort keys and a limit).
        case top(count: Int)
        /// Every match sorted (sort keys without a limit).
        case sortAll
    }

    /// The entity fetched.
    package var entityName: String
    /// Where candidates come from.
    package var access: Access
    /// How they are judged.
    package var filter: Filter
    /// How matches are ordered.
    package var order: Order
    /// The sort keys, for the description.
    package var sortKeys: [SortKey]
    /// How many threads judge the candidates: 2 when a sorted scan of a large entity
    /// is cut into chunks the threads claim, or the many candidates of an index are
    /// cut in two (`StoreOptions.parallelScanMinimum`, `parallelCandidateMinimum`), else 1.
    package var threads = 1

    /// The plan as lines of text, SQLite's `EXPLAIN QUERY PLAN` style.
    public var description: String {
        var lines: [String] = []
        switch access {
        case .keys: lines.append("SCAN \(entityName) KEYS (no record read)")
        case .scan: lines.append(threads > 1 ? "SCAN \(entityName) ON \(threads) THREADS (keys cut in half)" : "SCAN \(entityName)")
        case .index(let conditions):
            lines.append("SEARCH \(entityName) USING INDEX (\(conditions.joined(separator: " AND ")))"
                         + (threads > 1 ? ", CANDIDATES ON \(threads) THREADS" : ""))
        case .indexOrder(let attribute, let descending):
            lines.append("SCAN \(entityName) USING INDEX ON \(attribute) IN \(descending ? "DESCENDING" : "ASCENDING") ORDER (stops once the top rows are settled)")
        }
        switch filter {
        case .none: break
        case .records: lines.append("FILTER ON RECORDS (compiled)")
        case .objects(let reason): lines.append("FILTER ON OBJECTS (\(reason))")
        }
        let by = sortKeys.map { "\($0.keyPath)\($0.ascending ? "" : " DESC")" }.joined(separator: ", ")
        switch order {
        case .keyOrder(let stop?): lines.append("KEY ORDER, STOP AFTER \(stop)")
        case .keyOrder(nil): break
        case .top(let count): lines.append("ORDER BY \(by): TOP \(count) (bounded heap)")
        case .sortAll: lines.append("ORDER BY \(by): SORT ALL")
        }
        return lines.joined(separator: "\n")
    }
}
