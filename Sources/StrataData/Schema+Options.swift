extension Schema {
    /// The options of `@Attribute`, as the macro records them.
    public struct Attribute: Sendable, Hashable {
        /// An attribute option, as SwiftData's `Schema.Attribute.Option`.
        public struct Option: Sendable, Hashable {
            let name: String

            /// No two objects of the entity may hold the same value; a save that would
            /// break it throws `validationFailed` (Strata does not upsert).
            public static let unique = Option(name: "unique")
            /// Large values go to the store's blob area and load only when read.
            public static let externalStorage = Option(name: "externalStorage")
            /// A delete's history entry keeps the value in its tombstone
            /// (``DefaultHistoryDelete/tombstone``).
            public static let preserveValueOnDeletion = Option(name: "preserveValueOnDeletion")
        }

        /// The options given.
        public var options: [Option]
        /// The attribute's name in the previous schema version (renamed since).
        public var originalName: String?

        /// Records `@Attribute`'s arguments (written by `@Model`).
        public init(options: [Option] = [], originalName: String? = nil) {
            self.options = options
            self.originalName = originalName
        }
    }

    /// The options of `@Relationship`, as the macro records them.
    public struct Relationship: Sendable, Hashable {
        /// What deleting the source does to the destinations: Strata's `DeleteRule`
        /// (nullify, cascade, deny, noAction), the same four as SwiftData's.
        public typealias DeleteRule = Strata.DeleteRule

        /// The delete rule.
        public var deleteRule: DeleteRule
        /// The fewest destinations a to-many may hold; nil or 0 means no bound.
        public var minimumModelCount: Int?
        /// The most destinations a to-many may hold; nil or 0 means no bound.
        public var maximumModelCount: Int?
        /// The relationship's name in the previous schema version.
        public var originalName: String?
        /// The inverse relationship's name on the destination model.
        public var inverseName: String?

        /// Records `@Relationship`'s arguments (written by `@Model`).
        public init(
            deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
            maximumModelCount: Int? = 0, originalName: String? = nil, inverseName: String? = nil
        ) {
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.originalName = originalName
            self.inverseName = inverseName
        }
    }

    /// The `#Unique` and `#Index` declarations of a model, as property name paths.
    public struct Constraints: Sendable, Hashable {
        /// Each `#Unique` array.
        public var unique: [[String]]
        /// Each `#Index` array.
        public var indexes: [[String]]

        /// Records the constraints (written by `@Model`).
        public init(unique: [[String]] = [], indexes: [[String]] = []) {
            self.unique = unique
            self.indexes = indexes
        }
    }
}
