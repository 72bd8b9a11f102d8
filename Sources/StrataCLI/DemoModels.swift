import Strata

/// Scenario 1's models, built with the DSL (the same as Fixtures/models/Employees-v1.json
/// and -v2.json), so the demo needs no files.
enum DemoModels {
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

    static func v2() throws -> ObjectModel {
        try ObjectModel(version: "2") {
            Entity("Department") {
                Attribute("name", .string)
                Relationship("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: .cascade)
            }
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .double, default: .double(0))
                Relationship("department", to: "Department", inverse: "employees", deleteRule: .nullify)
                Relationship("profile", to: "Photo", inverse: "employee", deleteRule: .cascade)
            }
            Entity("Photo") {
                Attribute("photo", .binary, optional: true, externalStorage: true)
                Relationship("employee", to: "Employee", inverse: "profile", deleteRule: .nullify)
            }
        }
    }

    /// v1 → v2: inferred, with the Employee mapping given the photo-splitting policy.
    static func photoSplit(_ v1: ObjectModel, _ v2: ObjectModel) throws -> MappingModel {
        var mapping = try MappingModel.inferred(from: v1, to: v2)
        for index in mapping.entityMappings.indices where mapping.entityMappings[index].destinationEntityName == "Employee" {
            mapping.entityMappings[index].kind = .custom
            mapping.entityMappings[index].policyFactory = { DemoPhotoSplitPolicy() }
        }
        return mapping
    }
}

/// For each employee with a photo: the default copy (super), then a Photo that takes
/// the photo by reference — no bytes read or written — linked through `profile`.
final class DemoPhotoSplitPolicy: EntityMigrationPolicy, @unchecked Sendable {
    override func createDestinationInstances(forSource employee: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
        try super.createDestinationInstances(forSource: employee, mapping: mapping, manager: manager)
        guard try employee.hasValue("photo") else { return }
        // A missing destination would drop the photo unseen: fail the migration instead.
        guard let destination = try manager.destinationInstances(forEntityMapping: mapping.name, sourceInstances: [employee]).first else {
            throw StrataError(.migrationFailed, "no destination for \(employee.objectID)")
        }
        let photo = try manager.destinationContext.insert("Photo")
        try photo.takeValue(forKey: "photo", from: employee)
        try destination.setObject(photo, forKey: "profile")
    }
}
