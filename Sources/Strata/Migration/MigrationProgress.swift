/// Where a migration is, for progress bars and logs.
public struct MigrationProgress: Sendable, Equatable, CustomStringConvertible {
    public enum Pass: String, Sendable {
        case createInstances = "creating objects"
        case createRelationships = "creating relationships"
        case validate = "validating"
        case swap = "swapping in"
    }

    /// The stage of a plan (0 for a single mapping), and how many stages in all.
    public var stage: Int
    public var stageCount: Int
    public var pass: Pass
    /// The entity mapping being worked on.
    public var entityMapping: String
    public var done: Int
    public var total: Int
    /// The most objects the migration has held in memory at once so far: it follows
    /// the batch size, not the store's size.
    public var largestBatch: Int = 0

    public var description: String {
        "stage \(stage + 1)/\(stageCount) \(pass.rawValue) \(entityMapping): \(done)/\(total)"
    }
}
