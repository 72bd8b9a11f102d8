/// Where a migration is, for progress bars and logs.
public struct MigrationProgress: Sendable, Equatable, CustomStringConvertible {
    /// The pass a migration is in.
    public enum Pass: String, Sendable {
        /// Pass 1: destination objects from source objects.
        case createInstances = "creating objects"
        /// Pass 2: relationships of destination objects.
        case createRelationships = "creating relationships"
        /// Pass 3: every destination object against the new model.
        case validate = "validating"
        /// The staging store replaces the old one.
        case swap = "swapping in"
        /// A lightweight stage that rewrites no record (InPlaceMigration): its checks
        /// and its new record layouts, reported once per stage.
        case inPlace = "changing in place"
    }

    /// The stage of a plan (0 for a single mapping), and how many stages in all.
    public var stage: Int
    public var stageCount: Int
    /// The pass under way.
    public var pass: Pass
    /// The entity mapping being worked on.
    public var entityMapping: String
    /// Objects done in this pass and mapping.
    public var done: Int
    /// Objects this pass and mapping will do.
    public var total: Int
    /// The most objects the migration has held in memory at once so far: it follows
    /// the batch size, not the store's size.
    public var largestBatch: Int = 0

    /// A line for logs.
    public var description: String {
        "stage \(stage + 1)/\(stageCount) \(pass.rawValue) \(entityMapping): \(done)/\(total)"
    }
}
