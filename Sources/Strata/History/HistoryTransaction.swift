import Foundation

/// One committed transaction as the store's history keeps it (Core Data's
/// `NSPersistentHistoryTransaction`, SwiftData's `DefaultHistoryTransaction`).
public struct HistoryTransaction: Sendable, Equatable, Identifiable {
    /// Where this transaction lies in the history: pass it to
    /// ``ObjectStore/fetchHistory(after:limit:)`` to read what came after.
    public var token: HistoryToken
    /// When the transaction was committed.
    public var timestamp: Date
    /// The committing context's ``ObjectContext/transactionAuthor``.
    public var author: String?
    /// The committing context's ``ObjectContext/name``.
    public var contextName: String?
    /// What the transaction changed, one entry per object.
    public var changes: [Change]

    package init(token: HistoryToken, timestamp: Date, author: String? = nil, contextName: String? = nil, changes: [Change] = []) {
        self.token = token
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.changes = changes
    }

    public var id: HistoryToken { token }
}

extension HistoryTransaction {
    /// What one transaction did to one object (Core Data's `NSPersistentHistoryChange`).
    public struct Change: Sendable, Equatable {
        /// Inserted, updated or deleted.
        public enum ChangeType: String, Sendable, Equatable, Codable {
            case insert, update, delete
        }

        public var changeType: ChangeType
        /// The object changed.
        public var changedObjectID: ObjectID
        /// For an update, the names of the attributes and relationships written: those a
        /// context set, and a to-many whose inverse to-one moved onto or off the object.
        /// Empty when the object changed without a context naming a property: an edge
        /// of an ordered or many-to-many relationship added or removed, or a to-one a
        /// batch delete set to nil.
        public var updatedAttributes: [String]
        /// For a delete, the last values of the attributes declared with
        /// `preserveValueOnDeletion`; nil for inserts and updates.
        public var tombstone: [String: Value]?

        package init(changeType: ChangeType, changedObjectID: ObjectID, updatedAttributes: [String] = [], tombstone: [String: Value]? = nil) {
            self.changeType = changeType
            self.changedObjectID = changedObjectID
            self.updatedAttributes = updatedAttributes
            self.tombstone = tombstone
        }
    }
}
