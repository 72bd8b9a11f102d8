import StrataLog

/// The stable identity of a stored object: its entity and its key in the store.
/// `Sendable`, so it is how objects cross contexts and tasks.
///
/// IDs are permanent from the moment an object is inserted (Core Data hands out
/// temporary IDs until save; Strata allocates the key at insert, so an ID taken before
/// save stays valid after it).
///
/// ```swift
/// let id = employee.objectID
/// Task { let again = try otherContext.object(with: id) }
/// let uri = id.uriRepresentation        // "strata://<store>/Employee/17"
/// ```
public struct ObjectID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The entity of the object (the concrete one, never an abstract parent).
    public let entityName: String
    /// The object's key in the store: the entity's tag in the high 16 bits, a serial below.
    public let key: RecordKey
    /// The store's identifier (its UUID, as hex), so URIs of two stores never collide.
    public let storeIdentifier: String

    /// Creates an id; a store hands them out (`ManagedObject.objectID`, `objectID(forURI:)`).
    package init(entityName: String, key: RecordKey, storeIdentifier: String) {
        self.entityName = entityName
        self.key = key
        self.storeIdentifier = storeIdentifier
    }

    /// The serial number of the object within its entity.
    public var serial: UInt64 { key.rawValue & ObjectID.serialMask }

    /// A URI that names this object: `strata://STORE/ENTITY/SERIAL`.
    public var uriRepresentation: String { "strata://\(storeIdentifier)/\(entityName)/\(serial)" }

    /// `Entity/serial`, for logs.
    public var description: String { "\(entityName)/\(serial)" }

    /// Orders ids by key: an entity's objects in insertion order.
    public static func < (a: ObjectID, b: ObjectID) -> Bool { a.key < b.key }

    static let serialBits: UInt64 = 48
    static let serialMask: UInt64 = (1 << 48) - 1
}
