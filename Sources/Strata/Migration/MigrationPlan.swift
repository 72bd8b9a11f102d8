import StrataLog

/// The versions a store's model went through and how to migrate from each to the
/// next, as SwiftData's `SchemaMigrationPlan`: a store of any listed version opens at
/// the newest one, stage by stage.
///
/// ```swift
/// let plan = MigrationPlan(models: [v1, v2, v3, v4], stages: [
///     .lightweight(from: v1, to: v2),
///     .lightweight(from: v2, to: v3),
///     .custom(from: v3, to: v4, mapping: wateringSplit),
/// ])
/// let stages = try plan.path(fromHash: storeHash)   // a v2 store: [v2 → v3, v3 → v4]
/// ```
///
/// The initializer does not throw, so that a plan can be a `static let`; ``validate()``
/// (which ``path(fromHash:)`` calls) checks that it holds together.
public struct MigrationPlan: Sendable {
    /// The model versions, oldest first; the last is the one stores migrate to.
    public let models: [ObjectModel]
    /// One stage from each listed version to the next, in the same order.
    public let stages: [MigrationStage]

    /// Creates a plan.
    ///
    /// - Parameters:
    ///   - models: Every version, oldest first.
    ///   - stages: One stage per consecutive pair of versions, in order.
    public init(models: [ObjectModel], stages: [MigrationStage]) {
        self.models = models
        self.stages = stages
    }

    /// The newest model: the one every path arrives at.
    package var newestModel: ObjectModel? { models.last }

    /// The listed model with this version hash.
    package func model(withHash hash: String) -> ObjectModel? {
        models.first { $0.versionHash == hash }
    }

    /// The stages that take a store written under the model with this version hash to
    /// the newest model, in order; empty when the store is already at the newest.
    ///
    /// ```swift
    /// // A plan of models v1…v4; the store was written under v2.
    /// try plan.path(fromHash: v2.versionHash).count  // 2: v2 → v3, then v3 → v4
    /// ```
    ///
    /// - Throws: `StrataError` as ``validate()`` when the plan is invalid;
    ///   `noMigrationPath` when no listed model has this hash: the message names the hash
    ///   and the listed versions; the context holds `storeHash`, `knownHashes`,
    ///   `knownVersions` and the newest model's `modelHash` and `modelVersion`.
    public func path(fromHash hash: String) throws -> [MigrationStage] {
        try path(fromHash: hash, storeVersion: nil)
    }

    /// The stages that take a store written under `storeModel` (the model the store
    /// records, as ``StoreMetadata/model`` reads it) to the newest model: as
    /// ``path(fromHash:)``, and an error names the store's version identifier too
    /// (context `storeVersion`).
    ///
    /// ```swift
    /// let recorded = try ObjectStore.metadata(at: path).model
    /// let stages = try plan.path(from: recorded)
    /// ```
    ///
    /// - Throws: As ``path(fromHash:)``.
    public func path(from storeModel: ObjectModel) throws -> [MigrationStage] {
        try path(fromHash: storeModel.versionHash, storeVersion: storeModel.versionIdentifier)
    }

    func path(fromHash hash: String, storeVersion: String?) throws -> [MigrationStage] {
        try validate()
        guard let index = models.firstIndex(where: { $0.versionHash == hash }) else {
            let known = models.map { "'\($0.versionIdentifier)' (\($0.versionHash))" }
            let store = storeVersion.map { "the store's model '\($0)' (version hash \(hash))" }
                ?? "the store's model version hash \(hash)"
            var context = [
                "storeHash": hash,
                "knownHashes": models.map(\.versionHash).joined(separator: ","),
                "knownVersions": models.map(\.versionIdentifier).joined(separator: ","),
                "modelHash": newestModel?.versionHash ?? "",
                "modelVersion": newestModel?.versionIdentifier ?? "",
            ]
            context["storeVersion"] = storeVersion
            throw StrataError(
                .noMigrationPath,
                "\(store) is not one of the migration plan's models, so no stage leads from it to '\(newestModel?.versionIdentifier ?? "")': "
                    + known.joined(separator: ", "),
                context: context)
        }
        return Array(stages[index...])
    }
}
