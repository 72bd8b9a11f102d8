import Strata
import StrataScenarios

/// Scenario 1's models (`EmployeesScenario`) and the plan the migration crash tests
/// kill, whose intermediate versions are built from them.
extension MigrationWorkload {
    static func v1() throws -> ObjectModel { try EmployeesScenario.v1() }

    static func v2() throws -> ObjectModel { try EmployeesScenario.v2() }

    /// v1 with an optional Employee attribute: a lightweight migration to it runs in
    /// place and leaves every record in v1's layout (the layout-rewrite crash test).
    static func v1Plus() throws -> ObjectModel {
        var entities = try v1().entities
        if let index = entities.firstIndex(where: { $0.name == "Employee" }) {
            entities[index].declaredProperties.append(.attribute(AttributeDescription(name: "nickname", type: .string, isOptional: true)))
        }
        return try ObjectModel(version: "1-plus", entities: entities)
    }

    /// v2 with one more Employee attribute: the plan's intermediate version, so that a
    /// kill can land in either of two stages (and between them).
    static func v2Draft() throws -> ObjectModel {
        var entities = try v2().entities
        guard let index = entities.firstIndex(where: { $0.name == "Employee" }),
              let salary = entities[index].declaredProperties.firstIndex(where: { $0.name == "salary" }) else {
            throw StrataError(.invalidModel, "scenario 1's v2 has no Employee.salary to put the draft's badge after")
        }
        entities[index].declaredProperties.insert(.attribute(AttributeDescription(name: "badge", type: .string, defaultValue: .string("new"))), at: salary + 1)
        return try ObjectModel(version: "2-draft", entities: entities)
    }

    /// v1 with an optional attribute added and `name` made unique: the first stage of
    /// the plan, run in place on the live store, whose metadata the next stage
    /// reads in memory. The new rule is checked by a scan that writes nothing, then its
    /// terms are put on every employee's record before the swap: kills land in that
    /// build too, and must leave v1.
    static func v1Nickname() throws -> ObjectModel {
        var entities = try v1().entities
        if let index = entities.firstIndex(where: { $0.name == "Employee" }) {
            entities[index].declaredProperties = entities[index].declaredProperties.map { property in
                guard case .attribute(var attribute) = property, attribute.name == "name" else { return property }
                attribute.isUnique = true
                return .attribute(attribute)
            }
            entities[index].declaredProperties.append(.attribute(AttributeDescription(name: "nickname", type: .string, isOptional: true)))
        }
        return try ObjectModel(version: "1-nickname", entities: entities)
    }

    /// v1 → 1-nickname (in place) → 2-draft (the photo split, a rewrite into a staging
    /// store) → v2 (the draft's attribute removed, in place on the staging store): a
    /// three-stage plan ending in one swap. A kill anywhere leaves v1 or v2.
    static func plan() throws -> MigrationPlan {
        let (v1, nickname, draft, v2) = (try v1(), try v1Nickname(), try v2Draft(), try v2())
        return MigrationPlan(models: [v1, nickname, draft, v2], stages: [
            .lightweight(from: v1, to: nickname),
            .custom(from: nickname, to: draft, mapping: try EmployeesScenario.photoSplit(from: nickname, to: draft)),
            .lightweight(from: draft, to: v2),
        ])
    }
}
