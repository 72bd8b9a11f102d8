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
    package init(entity: String, property: String? = nil, reason: String) {
        self.entity = entity
        self.property = property
        self.reason = reason
    }

    /// `Entity.property: reason`, or `Entity: reason`.
    public var description: String {
        let place = property.map { "\(entity).\($0)" } ?? entity
        return "\(place): \(reason)"
    }

    /// The `migrationInferenceRefused` error listing every problem: the message names
    /// each `Entity.property` and its reason; the context holds the first problem's
    /// `entity`, `property` and `reason`, every problem one per line under `problems`,
    /// the entities under `entities`, both model hashes (`sourceHash`,
    /// `destinationHash`) and version identifiers (`sourceVersion`, `destinationVersion`).
    static func error(
        _ problems: [MappingProblem], source: ObjectModel, destination: ObjectModel
    ) -> StrataError {
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        let message = "Cannot infer a mapping from model '\(source.versionIdentifier)' to model "
            + "'\(destination.versionIdentifier)' (\(count)); nothing was written: "
            + problems.map(\.description).joined(separator: "; ")
        return StrataError(.migrationInferenceRefused, message,
                           context: context(of: problems, source: source, destination: destination))
    }

    /// The context an inference refusal carries, whether `.inferred` or a plan's
    /// validation found it (the two must agree, so callers match one shape).
    static func context(
        of problems: [MappingProblem], source: ObjectModel, destination: ObjectModel
    ) -> [String: String] {
        var entities: [String] = []
        for problem in problems where !entities.contains(problem.entity) { entities.append(problem.entity) }
        var context = [
            "problems": problems.map(\.description).joined(separator: "\n"),
            "entities": entities.joined(separator: ","),
            "sourceHash": source.versionHash,
            "destinationHash": destination.versionHash,
            "sourceVersion": source.versionIdentifier,
            "destinationVersion": destination.versionIdentifier,
        ]
        if let first = problems.first {
            context["entity"] = first.entity
            context["property"] = first.property
            context["reason"] = first.reason
        }
        return context
    }
}
