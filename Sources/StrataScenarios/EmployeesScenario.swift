import Strata

/// Scenario 1 (an HR service): departments and their employees, each with an optional
/// photo in external storage (v1); then the photos move into an entity of their own,
/// reached through `profile`, by a custom migration that hands each photo over by
/// reference and reads no photo byte (v2).
///
/// Defined once here and used by the demo (`strata demo`), the crash worker, the
/// benchmarks and the tests; `Fixtures/models/Employees-v1.json` and `-v2.json` are
/// the same models as JSON, and a test holds them and the typed twins to these. This
/// is example material for trying Strata out, not API to build on: it changes with
/// the scenario.
///
/// ```swift
/// let (v1, v2) = (try EmployeesScenario.v1(), try EmployeesScenario.v2())
/// options.migration = .mappings([try EmployeesScenario.photoSplit(from: v1, to: v2)], models: [v2])
/// ```
public enum EmployeesScenario {
    /// Scenario 1's migration policy: for each employee, the default copy (`super`), then,
    /// when it has a photo, a `Photo` that takes the photo by reference (no blob byte read
    /// or written), linked through `profile`.
    ///
    /// An employee whose copy cannot be found fails the migration: going on would drop
    /// its photo without a word.
    public final class PhotoSplitPolicy: EntityMigrationPolicy {
        override public init() {}

        override public func createDestinationInstances(forSource employee: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createDestinationInstances(forSource: employee, mapping: mapping, manager: manager)
            guard try employee.hasValue("photo") else { return }
            guard let destination = try manager.destinationInstances(forEntityMapping: mapping.name, sourceInstances: [employee]).first else {
                throw StrataError(.migrationFailed, "the photo split found no destination for \(employee.objectID)")
            }
            let photo = try manager.destinationContext.insert("Photo")
            try photo.takeValue(forKey: "photo", from: employee)
            try destination.setObject(photo, forKey: "profile")
        }
    }

    /// Departments (cascade to their employees) and employees with a `photo`.
    public static func v1() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            department
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .double, default: .double(0))
                Attribute("photo", .binary, optional: true, externalStorage: true)
                Relationship("department", to: "Department", inverse: "employees", deleteRule: .nullify)
            }
        }
    }

    /// The photo moved into `Photo`, one per employee that had one, through `profile`.
    public static func v2() throws -> ObjectModel {
        try ObjectModel(version: "2") {
            department
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .double, default: .double(0))
                Relationship("department", to: "Department", inverse: "employees", deleteRule: .nullify)
                Relationship("profile", to: "Photo", inverse: "employee", deleteRule: .cascade)
            }
            photo
        }
    }

    /// The mapping from a model of v1's shape to one of v2's: the inferred one, with the
    /// Employee mapping made custom and given a ``PhotoSplitPolicy``.
    ///
    /// - Throws: `.migrationFailed` when the models infer no mapping of `Employee`.
    public static func photoSplit(from source: ObjectModel, to destination: ObjectModel) throws -> MappingModel {
        var mapping = try MappingModel.inferred(from: source, to: destination)
        guard let index = mapping.entityMappings.firstIndex(where: { $0.destinationEntityName == "Employee" }) else {
            throw StrataError(.migrationFailed, "the inferred mapping from \(source.versionIdentifier) to \(destination.versionIdentifier) has no Employee mapping")
        }
        mapping.entityMappings[index].kind = .custom
        mapping.entityMappings[index].policyFactory = { PhotoSplitPolicy() }
        return mapping
    }

    private static var department: Entity {
        Entity("Department") {
            Attribute("name", .string)
            Relationship("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: .cascade)
        }
    }

    private static var photo: Entity {
        Entity("Photo") {
            Attribute("photo", .binary, optional: true, externalStorage: true)
            Relationship("employee", to: "Employee", inverse: "profile", deleteRule: .nullify)
        }
    }
}
