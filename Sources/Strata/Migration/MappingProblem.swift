import StrataLog

/// One reason a mapping cannot be inferred, or a plan does not hold together: the
/// entity and property it concerns and why.
///
/// ```swift
/// let problems = MappingModel.inferenceProblems(from: v1, to: v2)
/// problems.map(\.description)
/// // ["Task.latitude: new non-optional attribute without a default value"]
/// ```
public struct MappingProblem: Sendable, Hashable, CustomStringConvertible {
    /// The destination entity (or, for a removed one, the source entity) concerned.
    public var entity: String
    /// The property concerned, if the problem is about one.
    public var property: String?
    /// Why, in words.
    public var reason: String

    /// Creates a problem.
    public init(entity: String, property: String? = nil, reason: String) {
        self.entity = entity
        self.property = property
        self.reason = reason
    }

    /// `Entity.property: reason`, or `Entity: reason`.
    public var description: String {
        let place = property.map { "\(entity).\($0)" } ?? entity
        return "\(place): \(reason)"
    }

    /// The `migrationFailed` error listing every problem: the message names each
    /// `Entity.property` and its reason, the context holds them one per line under
    /// `problems`, the entities under `entities`, and both model hashes.
    static func error(
        _ problems: [MappingProblem], source: ObjectModel, destination: ObjectModel
    ) -> StrataError {
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        let message = "Cannot infer a mapping from model '\(source.versionIdentifier)' to model "
            + "'\(destination.versionIdentifier)' (\(count)); nothing was written: "
            + problems.map(\.description).joined(separator: "; ")
        var entities: [String] = []
        for problem in problems where !entities.contains(problem.entity) { entities.append(problem.entity) }
        return StrataError(.migrationFailed, message, context: [
            "problems": problems.map(\.description).joined(separator: "\n"),
            "entities": entities.joined(separator: ","),
            "sourceHash": source.versionHash,
            "destinationHash": destination.versionHash,
        ])
    }
}
