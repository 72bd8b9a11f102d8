import Strata

/// Scenario 1's models, built with the DSL (as Sources/StrataCLI/DemoModels.swift, which
/// the worker cannot import: it is another executable).
extension MigrationWorkload {
    static func v1() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Department") {
                Attribute("name", .string)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: .cascade)
            }
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .double, default: .double(0))
                Attribute("photo", .binary, optional: true, externalStorage: true)
                Relationship("department", to: "Department", inverse: "employees", deleteRule: .nullify)
            }
        }
    }

    static func v2() throws -> ObjectModel { try v2(version: "2", withBadge: false) }

    /// v2 with one more Employee attribute: the plan's intermediate version, so that a
    /// kill can land in either of two stages (and between them).
    static func v2Draft() throws -> ObjectModel { try v2(version: "2-draft", withBadge: true) }

    private static func v2(version: String, withBadge: Bool) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Department") {
                Attribute("name", .string)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: .cascade)
            }
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .double, default: .double(0))
                if withBadge { Attribute("badge", .string, default: .string("new")) }
                Relationship("department", to: "Department", inverse: "employees", deleteRule: .nullify)
                Relationship("profile", to: "Photo", inverse: "employee", deleteRule: .cascade)
            }
            Entity("Photo") {
                Attribute("photo", .binary, optional: true, externalStorage: true)
                Relationship("employee", to: "Employee", inverse: "profile", deleteRule: .nullify)
            }
        }
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
            .custom(from: nickname, to: draft, mapping: try photoSplit(nickname, draft)),
            .lightweight(from: draft, to: v2),
        ])
    }

    /// v1 → v2: inferred, with the Employee mapping given the photo-splitting policy.
    static func photoSplit(_ v1: ObjectModel, _ v2: ObjectModel) throws -> MappingModel {
        var mapping = try MappingModel.inferred(from: v1, to: v2)
        for index in mapping.entityMappings.indices where mapping.entityMappings[index].destinationEntityName == "Employee" {
            mapping.entityMappings[index].kind = .custom
            mapping.entityMappings[index].policyFactory = { CrashPhotoSplitPolicy() }
        }
        return mapping
    }
}

/// For each employee with a photo: the default copy (super), then a Photo that takes
/// the photo by reference, linked through `profile`.
final class CrashPhotoSplitPolicy: EntityMigrationPolicy, @unchecked Sendable {
    override func createDestinationInstances(forSource employee: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
        try super.createDestinationInstances(forSource: employee, mapping: mapping, manager: manager)
        guard try employee.hasValue("photo") else { return }
        // A missing destination would silently drop the photo: fail the migration instead.
        guard let destination = try manager.destinationInstances(forEntityMapping: mapping.name, sourceInstances: [employee]).first else {
            throw StrataError(.migrationFailed, "no destination for \(employee.objectID)")
        }
        let photo = try manager.destinationContext.insert("Photo")
        try photo.takeValue(forKey: "photo", from: employee)
        try destination.setObject(photo, forKey: "profile")
    }
}
