import Foundation

/// A managed object model: the entities a store holds, their attributes and
/// relationships, validated and hashed, as Core Data's `NSManagedObjectModel` and
/// SwiftData's `Schema` describe one.
///
/// Build a model with the result-builder DSL:
///
/// ```swift
/// let v1 = try ObjectModel(version: "1") {
///     Entity("Department") {
///         Attribute("name", .string)
///         Relationship("employees", to: "Employee", inverse: "department",
///                      toMany: true, deleteRule: .cascade)
///     }
///     Entity("Employee") {
///         Attribute("name", .string)
///         Attribute("salary", .double, default: .double(0))
///         Attribute("photo", .binary, optional: true, externalStorage: true)
///         Relationship("department", to: "Department", inverse: "employees")
///     }
/// }
/// ```
///
/// or read one from a JSON model file (docs/MODEL.md) with ``init(contentsOf:)``.
///
/// A model is a value: it validates itself when built (every initializer throws a
/// `StrataError` with code `invalidModel` naming the entity and property at fault), and
/// never changes afterwards. Its ``versionHash`` identifies what it means for storage.
///
/// ## Topics
///
/// ### Building
/// - ``init(version:fetchRequestTemplates:_:)``
/// - ``init(version:entities:fetchRequestTemplates:)``
/// - ``init(jsonData:)``
/// - ``init(contentsOf:)``
///
/// ### Entities
/// - ``entities``
/// - ``entity(named:)``
/// - ``entitiesByName``
/// - ``rootEntities``
/// - ``subentities(of:transitively:)``
///
/// ### Fetched properties and templates
/// - ``fetchedProperty(named:of:)``
/// - ``fetchRequestTemplates``
/// - ``fetchRequestTemplate(named:)``
/// - ``fetchRequest(fromTemplate:substitutionVariables:)``
///
/// ### Identity
/// - ``versionIdentifier``
/// - ``versionHash``
/// - ``entityVersionHashes``
/// - ``canonicalDescription``
///
/// ### Writing
/// - ``jsonData()``
/// - ``write(to:)``
public struct ObjectModel: Sendable, Hashable {
    /// A name for this version of the model ("1", "2024-05", "v3"), for people and for
    /// migration plans. It does not count in ``versionHash``.
    public let versionIdentifier: String
    /// The entities, sorted by name: a deterministic order the same in every process.
    public let entities: [EntityDescription]
    /// Hex SHA-256 of the model's canonical storage description (docs/MODEL.md): equal
    /// hashes mean records written under one model read the same under the other.
    public let versionHash: String
    /// Each entity's own version hash, by entity name: SHA-256 of the canonical
    /// description of the entity and its ancestors. Migration compares these to find
    /// the entities that changed.
    public let entityVersionHashes: [String: String]
    /// Hex SHA-256 over the indexed and unique flags and the compound uniqueness
    /// constraints only. They are part of ``versionHash`` too (a change of them is a
    /// model change that a migration carries out: it builds the new index and checks
    /// the stored values against a new constraint); this hash tells a change of them
    /// from a change of the records.
    package let indexHash: String
    /// The model's named fetch requests, sorted by name (``FetchRequestTemplate``).
    /// They do not count in ``versionHash``.
    public let fetchRequestTemplates: [FetchRequestTemplate]
    /// The hash of the version 1 canonical description, which left indexes and
    /// uniqueness out: what stores written before version 2 record (docs/MODEL.md,
    /// "Stores written under version 1").
    let legacyVersionHash: String

    private let positions: [String: Int]

    /// Creates a model from entity descriptions, resolves inheritance and validates it.
    ///
    /// - Parameters:
    ///   - version: The version identifier.
    ///   - entities: The entities, in any order; the model sorts them by name.
    ///   - fetchRequestTemplates: Named fetch requests, in any order.
    /// - Throws: `StrataError` with code `invalidModel` when the model is inconsistent;
    ///   the message and `context` (`entity`, `property`) name where.
    public init(version: String, entities: [EntityDescription], fetchRequestTemplates: [FetchRequestTemplate] = []) throws {
        try Self.validateNamesAndParents(entities)
        let resolved = try Self.resolveInheritance(Self.normalizeUniquenessConstraints(entities))
        try Self.validateProperties(resolved)
        try Self.validateUniquenessConstraints(resolved)
        versionIdentifier = version
        self.entities = resolved
        positions = Dictionary(uniqueKeysWithValues: resolved.enumerated().map { ($1.name, $0) })
        let hashes = Self.computeHashes(resolved)
        versionHash = hashes.model
        entityVersionHashes = hashes.entities
        indexHash = hashes.index
        legacyVersionHash = hashes.legacy
        self.fetchRequestTemplates = fetchRequestTemplates.sorted { ModelName.precedes($0.name, $1.name) }
        // Predicates resolve key paths through the whole model: checked once it is built.
        try validateFetchedProperties()
        try validateFetchRequestTemplates()
    }

    /// Creates a model with the result-builder DSL (``Entity``, ``Attribute``,
    /// ``Relationship``) and validates it.
    ///
    /// ```swift
    /// let model = try ObjectModel(version: "1") {
    ///     Entity("Task") {
    ///         Attribute("title", .string)
    ///         Attribute("done", .bool, default: .bool(false))
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: `StrataError` with code `invalidModel` when the model is inconsistent.
    public init(
        version: String, fetchRequestTemplates: [FetchRequestTemplate] = [],
        @ModelBuilder _ content: () throws -> [Entity]
    ) throws {
        try self.init(version: version, entities: try content().map(\.entityDescription),
                      fetchRequestTemplates: fetchRequestTemplates)
    }

    /// The entity with this name, or `nil`.
    public func entity(named name: String) -> EntityDescription? {
        positions[name].map { entities[$0] }
    }

    /// The entities by name.
    public var entitiesByName: [String: EntityDescription] {
        Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0) })
    }

    /// The sub-entities of the named entity, directly or transitively, sorted by name;
    /// empty when the entity is unknown or has none.
    public func subentities(of name: String, transitively: Bool = true) -> [EntityDescription] {
        guard let entity = entity(named: name) else { return [] }
        let names = transitively ? entity.allSubentityNames : entity.subentityNames
        return names.compactMap { self.entity(named: $0) }
    }

    /// The entities without a parent, sorted by name.
    public var rootEntities: [EntityDescription] { entities.filter { $0.parentName == nil } }

    /// Models are equal when their version identifiers, entities (declared
    /// properties in declaration order and fetched properties included) and fetch
    /// request templates are equal.
    public static func == (lhs: ObjectModel, rhs: ObjectModel) -> Bool {
        lhs.versionIdentifier == rhs.versionIdentifier && lhs.entities == rhs.entities
            && lhs.fetchRequestTemplates == rhs.fetchRequestTemplates
    }

    /// Hashes the version identifier and the version hash, which equal models share.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(versionIdentifier)
        hasher.combine(versionHash)
    }
}
