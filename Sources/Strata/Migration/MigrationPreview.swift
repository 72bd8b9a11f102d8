/// What a migration would do to a store, found without changing it: the entities and
/// properties added, renamed, retyped and removed, and for each removal how many stored
/// values it discards and their bytes (counted by streaming the store).
///
/// ```swift
/// let preview = try ObjectStore.previewMigration(at: path, to: v2)
/// if preview.discardsData {
///     print(preview.summary)   // what `strata migrate` prints before refusing
/// }
/// ```
public struct MigrationPreview: Sendable {
    /// The store's model version identifier and hash.
    public var sourceVersion: String
    public var sourceHash: String
    /// The target model's version identifier and hash.
    public var destinationVersion: String
    public var destinationHash: String
    /// Every change, in the mapping's order (destination entities, then removed ones).
    public var changes: [MigrationChange]

    /// Creates a preview.
    package init(sourceVersion: String, sourceHash: String, destinationVersion: String, destinationHash: String,
                changes: [MigrationChange]) {
        self.sourceVersion = sourceVersion
        self.sourceHash = sourceHash
        self.destinationVersion = destinationVersion
        self.destinationHash = destinationHash
        self.changes = changes
    }

    /// The changes that discard stored values.
    public var dataLoss: [MigrationChange] { changes.filter(\.discardsData) }

    /// Whether the migration discards any stored value.
    public var discardsData: Bool { changes.contains(where: \.discardsData) }

    /// One line per data-losing change: `Employee.photo: attribute removed, discards
    /// 30 values (1234567 bytes)`, joined by `; `.
    public var dataLossSummary: String { dataLoss.map(\.description).joined(separator: "; ") }

    /// The plan as lines for people: a header naming both versions, then one line per
    /// change.
    public var summary: String {
        var lines = ["model '\(sourceVersion)' (\(sourceHash)) → model '\(destinationVersion)' (\(destinationHash))"]
        if changes.isEmpty { lines.append("  no change to entities or properties") }
        lines += changes.map { "  \($0)" }
        return lines.joined(separator: "\n")
    }
}
