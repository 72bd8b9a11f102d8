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

    /// v1 → 2-draft (the photo split) → v2 (the draft's attribute removed, inferred):
    /// a two-stage plan, whose stages run one staging store inside the other.
    static func plan() throws -> MigrationPlan {
        let (v1, draft, v2) = (try v1(), try v2Draft(), try v2())
        return MigrationPlan(models: [v1, draft, v2], stages: [
            .custom(from: v1, to: draft, mapping: try photoSplit(v1, draft)),
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
