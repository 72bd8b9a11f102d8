/// A fetched property: a read-only, predicate-defined to-many of an entity, as Core
/// Data's `NSFetchedPropertyDescription`. It stores nothing; reading it runs a fetch of
/// ``destinationEntityName`` with ``predicate``, in which `$FETCH_SOURCE` is the object
/// the property is read on (`$FETCH_SOURCE.department` one of its properties).
///
/// ```swift
/// // On Department: the employees earning more than the department's threshold.
/// FetchedProperty("wellPaid", entity: "Employee",
///                 predicate: try Predicate(format: "department == $FETCH_SOURCE AND salary > $FETCH_SOURCE.threshold"),
///                 sortKeys: [.descending("salary")])
/// let wellPaid = try department.fetchedObjects("wellPaid")
/// ```
///
/// Fetched properties are part of the model, not of the store's records: they do not
/// count in ``ObjectModel/versionHash`` (as in Core Data, they do not affect store
/// compatibility), and a migration keeps them wherever the destination model has them.
public struct FetchedPropertyDescription: Sendable, Hashable {
    /// The name, unique among the entity's properties and fetched properties
    /// (inherited included).
    public var name: String
    /// The entity fetched (and its sub-entities).
    public var destinationEntityName: String
    /// Which objects of the destination entity the property holds; `$FETCH_SOURCE`
    /// and `$FETCH_SOURCE.<key path>` are the only variables it may use.
    public var predicate: Predicate
    /// The order of the result; empty keeps the fetch's order (insertion order).
    public var sortKeys: [SortKey]

    /// The variable that names the object a fetched property is read on.
    package static let sourceVariable = "FETCH_SOURCE"

    /// Creates a fetched property description.
    public init(name: String, destinationEntityName: String, predicate: Predicate, sortKeys: [SortKey] = []) {
        self.name = name
        self.destinationEntityName = destinationEntityName
        self.predicate = predicate
        self.sortKeys = sortKeys
    }
}

/// A fetched property declaration in the model DSL, given to ``Entity/fetchedProperties(_:)``.
///
/// ```swift
/// Entity("Department") { Attribute("name", .string) }
///     .fetchedProperties(
///         FetchedProperty("seniors", entity: "Employee",
///                         predicate: try Predicate(format: "department == $FETCH_SOURCE AND age >= 60")))
/// ```
public struct FetchedProperty: Sendable, Hashable {
    /// The description this declaration stands for.
    package var fetchedPropertyDescription: FetchedPropertyDescription

    /// Declares a fetched property.
    ///
    /// - Parameters:
    ///   - name: Its name, an ASCII identifier.
    ///   - entity: The entity it fetches.
    ///   - predicate: Which objects; `$FETCH_SOURCE` is the object it is read on.
    ///   - sortKeys: The order of the result.
    public init(_ name: String, entity: String, predicate: Predicate, sortKeys: [SortKey] = []) {
        fetchedPropertyDescription = FetchedPropertyDescription(
            name: name, destinationEntityName: entity, predicate: predicate, sortKeys: sortKeys)
    }
}
