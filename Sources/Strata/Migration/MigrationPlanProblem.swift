import StrataLog

/// A reason a ``MigrationPlan`` does not hold together, or cannot take a store where it
/// must go; turned into a `migrationFailed` error.
struct MigrationPlanProblem: Sendable, Hashable {
    var reason: String
    var context: [String: String]

    init(_ reason: String, context: [String: String] = [:]) {
        self.reason = reason
        self.context = context
    }

    func planError() -> StrataError {
        StrataError(.migrationFailed, "Invalid migration plan: \(reason)", context: context)
    }

    static func planError(_ problems: [MigrationPlanProblem]) -> StrataError {
        if problems.count == 1, let only = problems.first { return only.planError() }
        return StrataError(
            .migrationFailed,
            "Invalid migration plan (\(problems.count) problems): "
                + problems.map(\.reason).joined(separator: "; "),
            context: ["problems": problems.map(\.reason).joined(separator: "\n")])
    }
}
