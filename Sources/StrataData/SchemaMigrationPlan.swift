/// The versions a store may be at and the stages between them, as SwiftData's
/// `SchemaMigrationPlan`: a container opened with the plan takes a store of any listed
/// version to the newest, stage by stage, through Strata's streaming migration (bounded
/// memory, atomic: a failure anywhere leaves the store as it was).
///
/// ```swift
/// enum NotesPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self] }
///     static var stages: [MigrationStage] { [.lightweight(fromVersion: NotesV1.self, toVersion: NotesV2.self)] }
/// }
/// let container = try ModelContainer(for: NotesV2.Note.self, migrationPlan: NotesPlan.self,
///                                    configurations: ModelConfiguration(url: url))
/// ```
public protocol SchemaMigrationPlan: SendableMetatype {
    /// The versions, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages, one from each version to the next, in order.
    static var stages: [MigrationStage] { get }
}

extension SchemaMigrationPlan {
    /// Strata's plan for these versions and stages, checked against the container's schema.
    ///
    /// - Throws: `invalidModel` for a version that does not build; `noMigrationPath`
    ///   when `schema` is not the newest version or a stage names a version the plan
    ///   does not list.
    static func strataPlan(ending schema: Schema) throws -> MigrationPlan {
        var built: [ObjectIdentifier: Schema] = [:]
        var models: [ObjectModel] = []
        for version in schemas {
            let versionSchema = try version.schema()
            built[ObjectIdentifier(version)] = versionSchema
            models.append(versionSchema.objectModel)
        }
        guard let newest = models.last, newest.versionHash == schema.objectModel.versionHash else {
            throw StrataError(.noMigrationPath, "\(Self.self): the container's models are not the plan's newest schema (\(schemas.last.map { "\($0)" } ?? "none")); list the models of the newest VersionedSchema", context: ["plan": "\(Self.self)"])
        }
        func lookup(_ version: any VersionedSchema.Type) throws -> Schema {
            guard let found = built[ObjectIdentifier(version)] else {
                throw StrataError(.noMigrationPath, "\(Self.self): a stage names \(version), which is not in schemas", context: ["plan": "\(Self.self)"])
            }
            return found
        }
        let stages = try stages.map { try $0.strataStage(lookup) }
        return MigrationPlan(models: models, stages: stages)
    }
}
