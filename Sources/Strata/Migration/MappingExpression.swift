/// Where a destination property's value comes from during a migration, as the value
/// expression of Core Data's `NSPropertyMapping`.
///
/// ```swift
/// PropertyMapping(name: "name", value: .keyPath("title"))          // a renamed attribute
/// PropertyMapping(name: "memo", value: .constant(.string("Hello")))
/// PropertyMapping(name: "day", value: .closure { event in
///     .int(Int64(Calendar(identifier: .gregorian).component(.day, from: try event.date("timeStamp") ?? .distantPast)))
/// })
/// PropertyMapping(name: "latitude", value: .defaultValue)           // a new attribute
/// ```
///
/// For a relationship mapping, `.keyPath` names the source relationship whose objects
/// are mapped to their destination objects through the migration's object map,
/// `.destinationInstances(of:entityMapping:)` maps them through one named entity
/// mapping, and `.defaultValue` leaves the relationship empty; `.constant` and
/// `.closure` do not apply to relationships.
public enum MappingExpression: Sendable {
    /// The value of a property of the source object, by name (`"title"`), or through
    /// to-one relationships (`"department.name"`).
    case keyPath(String)
    /// The same value for every object.
    case constant(Value)
    /// A value computed from the source object.
    case closure(@Sendable (ManagedObject) throws -> Value)
    /// The destination attribute's default value, or no value when it has none (an
    /// empty relationship, for a relationship).
    case defaultValue
    /// For a relationship: the destination objects that the objects of the source's
    /// relationship `relationship` became under the entity mapping named
    /// `entityMapping` — Core Data's `FUNCTION($manager,
    /// "destinationInstancesForEntityMappingNamed:sourceInstances:", "M", $source.relationship)`,
    /// without writing a policy. It is set in the relationship pass, when every entity
    /// mapping has made its objects, through the relationship's setter (so its inverse
    /// is kept); a to-one takes the first destination.
    ///
    /// ```swift
    /// // Person.pets became Contact.animals; each Pet became an Animal under "PetToAnimal".
    /// PropertyMapping(name: "animals", value: .destinationInstances(of: "pets", entityMapping: "PetToAnimal"))
    /// ```
    case destinationInstances(of: String, entityMapping: String)

    /// The source key path, when the expression is one.
    package var keyPath: String? {
        if case .keyPath(let path) = self { return path }
        return nil
    }
}

extension MappingExpression: CustomStringConvertible {
    /// `$source.title`, `"Hello"`, `<closure>`, `<default>`: for logs and test messages.
    public var description: String {
        switch self {
        case .keyPath(let path): "$source.\(path)"
        case .constant(let value): "\(value)"
        case .closure: "<closure>"
        case .defaultValue: "<default>"
        case .destinationInstances(let relationship, let mapping):
            "destinationInstances(\(mapping), $source.\(relationship))"
        }
    }
}
