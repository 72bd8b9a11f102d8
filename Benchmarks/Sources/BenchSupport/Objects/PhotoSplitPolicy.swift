import Strata

/// Scenario 1's custom migration policy (the shape of the demo's and the tests'): for
/// each employee, the default copy (`super`), then — when it has a photo — a Photo that
/// takes the photo by reference (no blob bytes read or written), linked through
/// `profile`.
final class PhotoSplitPolicy: EntityMigrationPolicy, @unchecked Sendable {
    override func createDestinationInstances(forSource employee: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
        try super.createDestinationInstances(forSource: employee, mapping: mapping, manager: manager)
        guard try employee.hasValue("photo") else { return }
        guard let destination = try manager.destinationInstances(forEntityMapping: mapping.name, sourceInstances: [employee]).first else {
            throw BenchError("no destination for \(employee.objectID)")
        }
        let photo = try manager.destinationContext.insert("Photo")
        try photo.takeValue(forKey: "photo", from: employee)
        try destination.setObject(photo, forKey: "profile")
    }
}
