/// A named fetch request kept in the model, with `$variables` substituted when it is
/// used, as Core Data's fetch request templates
/// (`fetchRequestFromTemplate(withName:substitutionVariables:)`).
///
/// ```swift
/// let model = try ObjectModel(version: "1", fetchRequestTemplates: [
///     FetchRequestTemplate(name: "EarningAtLeast", entityName: "Employee",
///                          predicate: try Predicate(format: "salary >= $MINIMUM"),
///                          sortKeys: [.descending("salary")]),
/// ]) { … }
/// let request = try model.fetchRequest(fromTemplate: "EarningAtLeast", substitutionVariables: ["MINIMUM": 100_000])
/// let employees = try context.fetch(request)
/// ```
///
/// Templates are part of the model, not of the store's records: they do not count in
/// ``ObjectModel/versionHash``, and a migration keeps them wherever the destination
/// model has them.
public struct FetchRequestTemplate: Sendable, Hashable {
    /// The template's name, unique in the model.
    public var name: String
    /// The entity it fetches (and its sub-entities).
    public var entityName: String
    /// Which objects; may use `$variables`, bound by
    /// ``ObjectModel/fetchRequest(fromTemplate:substitutionVariables:)``.
    public var predicate: Predicate?
    /// The order of the result.
    public var sortKeys: [SortKey]

    /// Creates a template.
    public init(name: String, entityName: String, predicate: Predicate? = nil, sortKeys: [SortKey] = []) {
        self.name = name
        self.entityName = entityName
        self.predicate = predicate
        self.sortKeys = sortKeys
    }

    /// The `$variables` the template's predicate uses, without the `$`, sorted.
    package var variableNames: [String] { predicate?.variableNames ?? [] }
}
