extension Schema {
    /// What `@Model` records about one persisted property: its name, key path, declared
    /// default, options, and the kind of storage its Swift type asks for.
    public struct PropertyMetadata: @unchecked Sendable {
        // @unchecked: key paths and metatypes are immutable.

        /// What the property's Swift type makes it.
        enum Kind {
            /// A scalar attribute (``PersistentAttribute``).
            case attribute(AttributeType, optional: Bool)
            /// A `Codable` value kept as JSON.
            case composite(optional: Bool)
            /// A reference to one model (`Department?`, or `Department` when required).
            case toOne(any PersistentModel.Type, optional: Bool)
            /// References to many models (`[Employee]`).
            case toMany(any PersistentModel.Type)
            /// A type Strata cannot store.
            case unsupported(Any.Type)
        }

        /// The property's name, which is the attribute's or relationship's name.
        public let name: String
        /// The property's key path on its model class.
        public let keyPath: AnyKeyPath
        let kind: Kind
        let defaultValue: Value?
        let defaultProblem: String?
        let attribute: Schema.Attribute?
        let relationship: Schema.Relationship?

        /// Records one property (written by `@Model`).
        public init<Root, PropertyValue>(
            name: String,
            keyPath: KeyPath<Root, PropertyValue>,
            defaultValue: PropertyValue?,
            attribute: Schema.Attribute? = nil,
            relationship: Schema.Relationship? = nil
        ) {
            self.name = name
            self.keyPath = keyPath
            self.attribute = attribute
            self.relationship = relationship
            let kind = Self.kind(of: PropertyValue.self)
            self.kind = kind
            var problem: String?
            switch (kind, defaultValue) {
            case (.attribute, let value?):
                self.defaultValue = (value as? any PersistentAttribute)?.persistentValue
            case (.composite, let value?):
                do {
                    self.defaultValue = try CompositeCoding.encode(value)
                } catch {
                    self.defaultValue = nil
                    problem = "its default value does not encode: \(error)"
                }
            default:
                self.defaultValue = nil
            }
            if problem == nil, case .composite(optional: false) = kind,
               !Self.hasPlaceholder(PropertyValue.self, declaredDefault: self.defaultValue) {
                problem = "a non-optional Codable property needs a value to return when a read fails "
                    + "(a null left by untyped code, JSON of another shape), and Strata cannot make one for \(PropertyValue.self): "
                    + "give it a default value, make it optional, or make the enum CaseIterable"
            }
            defaultProblem = problem
        }

        /// Whether a failed read of a non-optional composite of this type has a value to
        /// return (``CompositePlaceholder``), so that it never traps.
        static func hasPlaceholder(_ type: Any.Type, declaredDefault: Value?) -> Bool {
            guard let decodable = type as? any Decodable.Type else { return false }
            func make<T: Decodable>(_ type: T.Type) -> Bool {
                CompositePlaceholder.make(type, declaredDefault: declaredDefault) != nil
            }
            return make(decodable)
        }

        static func kind(of type: Any.Type) -> Kind {
            if let attribute = type as? any PersistentAttribute.Type {
                return .attribute(attribute.attributeType, optional: attribute.isOptionalAttribute)
            }
            if let many = type as? any ModelArrayType.Type { return .toMany(many.modelType) }
            if let one = type as? any OptionalModelType.Type { return .toOne(one.modelType, optional: true) }
            if let model = type as? any PersistentModel.Type { return .toOne(model, optional: false) }
            if type is any Codable.Type {
                return .composite(optional: type is any OptionalType.Type)
            }
            return .unsupported(type)
        }
    }
}

/// `[M]` for a model type `M`: a to-many relationship.
protocol ModelArrayType {
    static var modelType: any PersistentModel.Type { get }
}

extension Array: ModelArrayType where Element: PersistentModel {
    static var modelType: any PersistentModel.Type { Element.self }
}

/// `M?` for a model type `M`: an optional to-one relationship.
protocol OptionalModelType {
    static var modelType: any PersistentModel.Type { get }
}

extension Optional: OptionalModelType where Wrapped: PersistentModel {
    static var modelType: any PersistentModel.Type { Wrapped.self }
}

/// Any `Optional`, to tell an optional composite and to make its `nil`.
protocol OptionalType {
    static var noneValue: Self { get }
    var isNone: Bool { get }
}

extension Optional: OptionalType {
    static var noneValue: Self { nil }
    var isNone: Bool { self == nil }
}
