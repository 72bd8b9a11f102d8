import StrataLog

/// A reason a ``MigrationPlan`` does not hold together, or cannot take a store where it
/// must go; turned into a ``StrataError`` whose code says which: an inference refusal
/// of a lightweight stage is `migrationInferenceRefused` with the context `.inferred`
/// gives; a store version the plan does not list is `noMigrationPath`; a plan that
/// does not hold together is `migrationFailed`.
struct MigrationPlanProblem: Sendable, Hashable {
    var reason: String
    var context: [String: String]
    var code: StrataError.Code

    init(_ reason: String, code: StrataError.Code = .migrationFailed, context: [String: String] = [:]) {
        self.reason = reason
        self.code = code
        self.context = context
    }

    /// A lightweight stage's inference problem, with the context ``MappingProblem``
    /// errors carry (entity, property, reason, both hashes and versions) and the stage.
    init(_ problem: MappingProblem, in stage: MigrationStage) {
        self.init("stage \(stage.label): \(problem.description)", code: .migrationInferenceRefused,
                  context: MappingProblem.context(of: [problem], source: stage.source, destination: stage.destination)
                      .merging(["stage": stage.label]) { $1 })
    }

    func planError() -> StrataError {
        StrataError(code, "Invalid migration plan: \(reason)", context: context)
    }

    /// One error for every problem: the shared code when they all have one (else
    /// `migrationFailed`), the first problem's context, and every reason one per line
    /// under `problems` (with `entities` when they are inference refusals).
    static func planError(_ problems: [MigrationPlanProblem]) -> StrataError {
        if problems.count == 1, let only = problems.first { return only.planError() }
        let code = problems.allSatisfy { $0.code == problems.first?.code } ? problems.first?.code ?? .migrationFailed : .migrationFailed
        var context = problems.first(where: { $0.code == code })?.context ?? [:]
        context["problems"] = problems.map(\.reason).joined(separator: "\n")
        var entities: [String] = []
        for problem in problems {
            if let entity = problem.context["entity"], !entities.contains(entity) { entities.append(entity) }
        }
        if !entities.isEmpty { context["entities"] = entities.joined(separator: ",") }
        return StrataError(
            code,
            "Invalid migration plan (\(problems.count) problems): "
                + problems.map(\.reason).joined(separator: "; "),
            context: context)
    }
}
