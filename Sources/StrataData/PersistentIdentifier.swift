/// The identity of a model, as SwiftData's `PersistentIdentifier`: the `ObjectID` of
/// its object once inserted (stable, `Sendable`, how models cross contexts and tasks),
/// a temporary one before.
///
/// ```swift
/// let id = ada.persistentModelID
/// let again: Employee? = otherContext.registeredModel(for: id) ?? (try? otherContext.existingModel(for: id))
/// ```
public struct PersistentIdentifier: Hashable, Sendable, Comparable, CustomStringConvertible {
    enum Storage: Hashable, Sendable {
        case permanent(ObjectID)
        case temporary(UInt)
    }

    let storage: Storage

    /// The identifier of an object.
    public init(objectID: ObjectID) { storage = .permanent(objectID) }

    init(temporary model: ObjectIdentifier) { storage = .temporary(UInt(bitPattern: model.hashValue)) }

    /// The object's id, nil while the model is not inserted.
    public var objectID: ObjectID? {
        if case .permanent(let id) = storage { return id }
        return nil
    }

    /// The entity's name, nil while temporary.
    public var entityName: String? { objectID?.entityName }

    /// The object's serial within its entity (`ObjectID.serial`), nil while temporary:
    /// a number for a URL, back to an identifier with
    /// ``ModelContainer/persistentIdentifier(for:serial:)``.
    public var serial: UInt64? { objectID?.serial }

    /// Whether the identifier is temporary (the model is not inserted yet).
    public var isTemporary: Bool { objectID == nil }

    public var description: String {
        switch storage {
        case .permanent(let id): id.uriRepresentation
        case .temporary(let token): "temporary/\(token)"
        }
    }

    public static func < (a: PersistentIdentifier, b: PersistentIdentifier) -> Bool {
        switch (a.storage, b.storage) {
        case (.permanent(let x), .permanent(let y)): x < y
        case (.temporary(let x), .temporary(let y)): x < y
        case (.temporary, .permanent): true
        case (.permanent, .temporary): false
        }
    }
}
