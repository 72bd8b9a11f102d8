/// One version of a set of models, as SwiftData's `VersionedSchema`: the models are
/// usually nested in the conforming enum, so each version keeps its own classes.
///
/// ```swift
/// enum NotesV1: VersionedSchema {
///     static let versionIdentifier = Schema.Version(1, 0, 0)
///     static var models: [any PersistentModel.Type] { [Note.self] }
///     @Model final class Note { var title: String; init(title: String) { self.title = title } }
/// }
/// ```
///
/// An entity is named after its class without the enum (`NotesV1.Note` and
/// `NotesV2.Note` are both entity `Note`), so versions name the same entities.
///
/// Its metatypes are sendable, so that a plan's stages, which name versions, can be
/// held in `static let`s in Swift 6 mode.
public protocol VersionedSchema: SendableMetatype {
    /// The version's identifier.
    static var versionIdentifier: Schema.Version { get }
    /// The version's model classes.
    static var models: [any PersistentModel.Type] { get }
}

extension VersionedSchema {
    /// The schema of this version.
    ///
    /// - Throws: `invalidModel` as `Schema.init(_:version:)`.
    public static func schema() throws -> Schema {
        try Schema(models, version: versionIdentifier)
    }
}
