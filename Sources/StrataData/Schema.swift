/// The model types a container holds and the `ObjectModel` built from them, as
/// SwiftData's `Schema`.
///
/// ```swift
/// let schema = try Schema([Employee.self, Department.self], version: Schema.Version(1, 0, 0))
/// schema.objectModel.entity(named: "Employee")?.attributesByName["salary"]?.type  // .double
/// ```
///
/// Each model class is one entity named after the class (`V1.Note` is entity `Note`);
/// attribute types come from the properties' Swift types (``PersistentAttribute``;
/// other `Codable` types are composites), relationships from model-typed properties
/// (`Department?`, `[Employee]`), inverses from `@Relationship(inverse:)` or, when
/// only one relationship leads back, paired automatically.
public struct Schema: @unchecked Sendable {
    // @unchecked: `types` holds metatypes, immutable and safe to share; the compiler
    // does not treat existential metatypes as Sendable.

    /// The model types, in the order given.
    public let types: [any PersistentModel.Type]
    /// The version this schema is.
    public let version: Version
    /// The untyped model the store opens with.
    public let objectModel: ObjectModel
    let typesByEntity: [String: any PersistentModel.Type]
    let keyPathNames: [AnyKeyPath: String]
    /// Each type's `schemaMetadata`, read once: `@Model` generates it as a computed
    /// property, and an insert walks it for every model.
    let metadataByEntity: [String: [PropertyMetadata]]

    /// Builds the schema of `types`.
    ///
    /// - Throws: `StrataError` `invalidModel` naming the model and property at fault
    ///   (an inverse that does not exist, a `#Unique` or `#Index` naming no
    ///   persisted attribute, a default value that does not encode, a non-optional
    ///   `Codable` property that has no value to return from a failed read — an enum
    ///   that is not `CaseIterable`, without a default value).
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) throws {
        var seen: [String: any PersistentModel.Type] = [:]
        var all: [any PersistentModel.Type] = []
        for type in types where seen[type.entityName] == nil {
            seen[type.entityName] = type
            all.append(type)
        }
        self.types = all
        self.version = version
        self.typesByEntity = seen
        self.metadataByEntity = seen.mapValues { $0.schemaMetadata }
        self.keyPathNames = Self.keyPathNames(all)
        self.objectModel = try SchemaBuilder(types: all).objectModel(version: version.description)
    }

    /// Builds the schema of `types`.
    public init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) throws {
        try self.init(types, version: version)
    }

    /// The model type of an entity, or nil when the schema has none.
    public func type(forEntity name: String) -> (any PersistentModel.Type)? { typesByEntity[name] }

    /// A schema version: major, minor and patch, as SwiftData's `Schema.Version`.
    public struct Version: Sendable, Hashable, Comparable, CustomStringConvertible {
        public var major: Int
        public var minor: Int
        public var patch: Int

        /// Creates a version, `Schema.Version(1, 0, 0)`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        public var description: String { "\(major).\(minor).\(patch)" }

        public static func < (a: Version, b: Version) -> Bool {
            (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
        }
    }
}
