/// What inference could map between two models, and what it could not: the starting
/// point of a custom mapping, as Core Data's workflow starts from the inferred mapping
/// model and edits what needs a person's decision. Made by
/// ``MappingModel/inferredDraft(from:to:)``.
///
/// ```swift
/// let draft = MappingModel.inferredDraft(from: v1, to: v2)
/// draft.problems.map(\.description)
/// // ["Task.priority: type change String → Int64 is not lossless"]
/// var mapping = draft.mapping
/// let index = mapping.entityMappings.firstIndex { $0.name == "TaskToTask" }!
/// mapping.entityMappings[index].attributeMappings.append(
///     PropertyMapping(name: "priority", value: .closure { task in
///         .int(Int64(try task.string("priority") ?? "") ?? 0)
///     }))
/// options.migration = .mappings([mapping], models: [v2])
/// ```
public struct MappingDraft: Sendable {
    /// Every entity mapping inference could make. A property a problem names has no
    /// property mapping here (its destination gets its default, or nothing) until you
    /// add one; an entity mapping that lost one is a `.transform`, never a `.copy`.
    public var mapping: MappingModel
    /// What inference could not map, each with its entity, property and reason: the
    /// list ``MappingModel/inferenceProblems(from:to:)`` gives.
    public var problems: [MappingProblem]

    /// Whether inference mapped everything: the draft is then the mapping
    /// ``MappingModel/inferred(from:to:)`` returns.
    package var isComplete: Bool { problems.isEmpty }
}
