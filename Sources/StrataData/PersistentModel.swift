/// A class whose instances a ``ModelContext`` stores: what `@Model` makes of a class,
/// as SwiftData's `PersistentModel`. Do not conform by hand.
///
/// A model instance is a typed view of one `ManagedObject`: before it is inserted it
/// keeps its values itself; once inserted or fetched, every property reads and writes
/// the managed object (``managedObject``), so typed and untyped code see one object.
///
/// ```swift
/// let ada = Employee(name: "Ada", email: "ada@example.com")
/// context.insert(ada)
/// ada.persistentModelID            // the object's stable id
/// ada.managedObject?.entity.name   // "Employee"
/// ```
public protocol PersistentModel: AnyObject, Hashable, Identifiable where ID == PersistentIdentifier {
    /// Where the model's values live: its own until inserted, then its managed object.
    var persistentBackingData: ModelBackingData { get set }
    /// Creates a model over backing data (how a context hands out fetched objects).
    init(backingData: ModelBackingData)
    /// Each persisted property, as `@Model` read it.
    static var schemaMetadata: [Schema.PropertyMetadata] { get }
    /// The `#Unique` and `#Index` declarations.
    static var schemaConstraints: Schema.Constraints { get }
    /// The entity's name; by default the class's name (see below). A class may declare
    /// `static var entityName: String { "Employee" }` to map onto an entity of another name.
    static var entityName: String { get }
}

extension PersistentModel {
    /// The entity's name: the class's name without its enclosing types (`V2.Note` is
    /// `Note`), so that versioned schemas name the same entity in every version.
    public static var entityName: String { String(describing: Self.self) }

    /// The model's stable identity; a temporary one until it is inserted.
    public var persistentModelID: PersistentIdentifier {
        if let object = persistentBackingData.object { return PersistentIdentifier(objectID: object.objectID) }
        return PersistentIdentifier(temporary: ObjectIdentifier(self))
    }

    /// `Identifiable`: the ``persistentModelID``.
    public var id: PersistentIdentifier { persistentModelID }

    /// The context the model was inserted into or fetched from, if any.
    public var modelContext: ModelContext? { persistentBackingData.context }

    /// The untyped object behind the model, once inserted or fetched.
    public var managedObject: ManagedObject? { persistentBackingData.object }

    /// Whether the model is deleted in its context (and not yet saved, or saved).
    public var isDeleted: Bool { persistentBackingData.object?.isDeleted ?? false }

    /// Whether the model has unsaved changes (or is not inserted at all).
    public var hasChanges: Bool { persistentBackingData.object?.hasChanges ?? true }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
