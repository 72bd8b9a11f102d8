/// One result of ``ObjectContext/fetchDictionaries(_:)``: an object's id and the
/// properties the request named, read from its record without a managed object — what
/// Core Data's `NSDictionaryResultType` hands back.
///
/// ```swift
/// var request = FetchRequest(entityName: "Employee", predicate: try Predicate(format: "salary > 50000"))
/// request.sortKeys = [.descending("salary")]
/// request.propertiesToFetch = ["name", "salary", "department"]
/// for row in try context.fetchDictionaries(request) {
///     print(row["name"] ?? .null, row["salary"] ?? .null, row.destination("department") as Any)
/// }
/// ```
public struct FetchedValues: Sendable, Hashable {
    /// The object the values are read from.
    public let objectID: ObjectID
    /// Every attribute asked for, by name: `.null` when the object has none (Core
    /// Data's dictionaries leave such a key out; here it is there, with `.null`).
    public let values: [String: Value]
    /// Every to-one relationship asked for that is set, by name: an unset one is
    /// absent, as in Core Data's dictionaries.
    public let destinations: [String: ObjectID]

    package init(objectID: ObjectID, values: [String: Value], destinations: [String: ObjectID]) {
        self.objectID = objectID
        self.values = values
        self.destinations = destinations
    }

    /// The value of the attribute `key`; nil when it was not asked for (or names a relationship).
    public subscript(key: String) -> Value? { values[key] }

    /// The destination of the to-one relationship `key`; nil when it is unset or was not asked for.
    public func destination(_ key: String) -> ObjectID? { destinations[key] }
}
