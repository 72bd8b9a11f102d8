/// A history token, as SwiftData's `DefaultHistoryToken`: `Codable` to keep a place,
/// `Comparable` for `#Predicate { $0.token > token }`.
public typealias DefaultHistoryToken = HistoryToken

/// One committed transaction of a container's store, as SwiftData's
/// `DefaultHistoryTransaction` (``ModelContext/fetchHistory(_:)``).
public struct DefaultHistoryTransaction: Sendable, Identifiable {
    public var token: DefaultHistoryToken
    /// The transaction's sequence in its store.
    public var transactionIdentifier: UInt64 { token.sequence }
    public var storeIdentifier: String { token.storeIdentifier }
    /// The saving context's ``ModelContext/author``.
    public var author: String?
    public var timestamp: Date
    /// What the transaction did to each model.
    public var changes: [HistoryChange]

    public var id: DefaultHistoryToken { token }
}

/// What a transaction did to one model, as SwiftData's `HistoryChange`.
public enum HistoryChange: Sendable {
    case insert(any HistoryInsert)
    case update(any HistoryUpdate)
    case delete(any HistoryDelete)

    /// The model changed.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): change.changedPersistentIdentifier
        case .update(let change): change.changedPersistentIdentifier
        case .delete(let change): change.changedPersistentIdentifier
        }
    }
}

/// A change of one model of type `Model`.
public protocol HistoryModelChange: Sendable {
    associatedtype Model: PersistentModel
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var transactionIdentifier: UInt64 { get }
}

public protocol HistoryInsert: HistoryModelChange {}
public protocol HistoryUpdate: HistoryModelChange {
    /// The persisted properties the update wrote.
    var updatedAttributes: [PartialKeyPath<Model>] { get }
}
public protocol HistoryDelete: HistoryModelChange {
    /// The last values of the properties marked `@Attribute(.preserveValueOnDeletion)`.
    var tombstone: HistoryTombstone<Model> { get }
}

/// A model inserted (SwiftData's `DefaultHistoryInsert`).
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert {
    public var changedPersistentIdentifier: PersistentIdentifier
    public var transactionIdentifier: UInt64
}

/// A model updated (SwiftData's `DefaultHistoryUpdate`).
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, @unchecked Sendable {
    // @unchecked: key paths are immutable values; `PartialKeyPath` is not marked Sendable.
    public var changedPersistentIdentifier: PersistentIdentifier
    public var transactionIdentifier: UInt64
    public var updatedAttributes: [PartialKeyPath<Model>]
}

/// A model deleted (SwiftData's `DefaultHistoryDelete`).
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete {
    public var changedPersistentIdentifier: PersistentIdentifier
    public var transactionIdentifier: UInt64
    public var tombstone: HistoryTombstone<Model>
}

/// The values a delete kept (SwiftData's `HistoryTombstone`): read by key path.
public struct HistoryTombstone<Model: PersistentModel>: @unchecked Sendable {
    // @unchecked: key paths are immutable values; `AnyKeyPath` is not marked Sendable.
    let values: [String: Value]
    let names: [AnyKeyPath: String]

    /// The value kept for `keyPath`, nil when the property is not preserved.
    public subscript<T: PersistentAttribute>(keyPath: KeyPath<Model, T>) -> T? {
        guard let name = names[keyPath], let value = values[name] else { return nil }
        return T(persistentValue: value)
    }

    /// The values kept, by property name.
    public var valuesByName: [String: Value] { values }
}

extension DefaultHistoryTransaction {
    /// The typed form of an untyped transaction, each change of a model type `schema` has.
    init(_ transaction: HistoryTransaction, schema: Schema) {
        token = transaction.token
        author = transaction.author
        timestamp = transaction.timestamp
        changes = transaction.changes.compactMap { change in
            guard let type = schema.type(forEntity: change.changedObjectID.entityName) else { return nil }
            return Self.change(change, of: type, transaction: transaction.token.sequence)
        }
    }

    private static func change<Model: PersistentModel>(_ change: HistoryTransaction.Change, of type: Model.Type, transaction: UInt64) -> HistoryChange {
        let id = PersistentIdentifier(objectID: change.changedObjectID)
        let metadata = Model.schemaMetadata
        switch change.changeType {
        case .insert:
            return .insert(DefaultHistoryInsert<Model>(changedPersistentIdentifier: id, transactionIdentifier: transaction))
        case .update:
            let paths = change.updatedAttributes.compactMap { name in
                metadata.first { $0.name == name }?.keyPath as? PartialKeyPath<Model>
            }
            return .update(DefaultHistoryUpdate<Model>(changedPersistentIdentifier: id, transactionIdentifier: transaction, updatedAttributes: paths))
        case .delete:
            let names = Dictionary(metadata.map { ($0.keyPath, $0.name) }, uniquingKeysWith: { a, _ in a })
            return .delete(DefaultHistoryDelete<Model>(changedPersistentIdentifier: id, transactionIdentifier: transaction,
                                                       tombstone: HistoryTombstone(values: change.tombstone ?? [:], names: names)))
        }
    }
}
