/// A ``PredicateSubject`` backed by a dictionary: for tests, and for evaluating
/// predicates over data that is not in a store.
///
/// ```swift
/// let department = DictionarySubject("Department", ["name": .value(.string("R&D"))])
/// let employee = DictionarySubject("Employee", [
///     "age": .value(.int(25)),
///     "department": .toOne(department),
/// ])
/// try Predicate(format: "department.name == 'R&D'").evaluate(with: employee)   // true
/// ```
package struct DictionarySubject: PredicateSubject, Sendable {
    /// One entry of the dictionary: a value or a relationship.
    package indirect enum Entry: Sendable {
        /// An attribute value.
        case value(Value)
        /// A to-one relationship; `nil` when it has no destination.
        case toOne(DictionarySubject?)
        /// A to-many relationship.
        case toMany([DictionarySubject])
    }

    /// The name used in error messages, as an entity name would be.
    package var entityName: String
    /// The entries by key.
    package var entries: [String: Entry]

    /// Creates a subject from its entries.
    package init(_ entityName: String = "Object", _ entries: [String: Entry]) {
        self.entityName = entityName
        self.entries = entries
    }

    /// The entry for `key`.
    ///
    /// - Throws: `StrataError` `.unknownKeyPath` when there is no entry for `key`.
    package func member(forKey key: String) throws -> PredicateMember {
        guard let entry = entries[key] else {
            throw StrataError(
                .unknownKeyPath,
                "\(entityName) has no property '\(key)'",
                context: ["entity": entityName, "keyPath": key]
            )
        }
        switch entry {
        case .value(let value): return .value(value)
        case .toOne(let destination): return .toOne(destination)
        case .toMany(let destinations): return .toMany(destinations)
        }
    }
}
