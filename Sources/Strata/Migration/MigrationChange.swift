/// One change a migration makes to a store's model, with what it discards of the
/// stored data: the lines of a ``MigrationPreview`` (`strata migrate --dry-run`).
///
/// ```swift
/// let preview = try ObjectStore.previewMigration(at: path, to: v2)
/// for change in preview.changes { print(change) }
/// // Employee.photo: attribute removed, discards 30 values (1234567 bytes)
/// // Photo: entity added
/// ```
public struct MigrationChange: Sendable, Hashable, CustomStringConvertible {
    /// What changed.
    public enum Kind: String, Sendable, Hashable {
        case entityAdded, entityRemoved, entityRenamed
        case attributeAdded, attributeRemoved, attributeRenamed, attributeTypeChanged
        case relationshipAdded, relationshipRemoved, relationshipRenamed

        /// "attribute removed", for messages.
        package var phrase: String {
            switch self {
            case .entityAdded: "entity added"
            case .entityRemoved: "entity removed"
            case .entityRenamed: "entity renamed"
            case .attributeAdded: "attribute added"
            case .attributeRemoved: "attribute removed"
            case .attributeRenamed: "attribute renamed"
            case .attributeTypeChanged: "attribute type changed"
            case .relationshipAdded: "relationship added"
            case .relationshipRemoved: "relationship removed"
            case .relationshipRenamed: "relationship renamed"
            }
        }
    }

    /// What changed.
    public var kind: Kind
    /// The entity concerned: the destination entity, or the source entity for a
    /// removal (of an entity, or of a property of the source entity's objects).
    public var entity: String
    /// The property concerned, nil for a change of the entity itself.
    public var property: String?
    /// For a rename, the old name (`Task.title` for `Task.name`; the old entity name
    /// for an entity); for a type change, `Int16 → Int32`.
    public var detail: String?
    /// How many stored values the change discards: the objects of a removed entity,
    /// the non-null values of a removed attribute, the links held by a removed
    /// relationship. 0 when nothing stored is lost.
    public var discardedValues: Int
    /// The bytes of those values: a removed entity's record and blob bytes, a removed
    /// attribute's value bytes (an external binary's full length), 8 per link.
    public var discardedBytes: Int

    /// Creates a change.
    package init(kind: Kind, entity: String, property: String? = nil, detail: String? = nil,
                discardedValues: Int = 0, discardedBytes: Int = 0) {
        self.kind = kind
        self.entity = entity
        self.property = property
        self.detail = detail
        self.discardedValues = discardedValues
        self.discardedBytes = discardedBytes
    }

    /// `Entity.property`, or `Entity`.
    public var place: String { property.map { "\(entity).\($0)" } ?? entity }

    /// Whether the change discards stored values.
    public var discardsData: Bool { discardedValues > 0 }

    /// `Employee.photo: attribute removed, discards 30 values (1234567 bytes)`.
    public var description: String {
        var text = "\(place): \(kind.phrase)"
        if let detail { text += kind == .attributeTypeChanged ? " (\(detail))" : " (was \(detail))" }
        if discardsData {
            let unit = kind == .entityRemoved ? "object" : (kind == .relationshipRemoved ? "link" : "value")
            text += ", discards \(discardedValues) \(unit)\(discardedValues == 1 ? "" : "s") (\(discardedBytes) bytes)"
        }
        return text
    }
}
