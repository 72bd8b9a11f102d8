import Foundation
import StrataTestSupport
@testable import Strata

/// Small models and helpers for the context suites.
enum ContextFixtures {
    /// Departments and employees with a unique, validated email and an external photo.
    static func company() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Department") {
                Attribute("name", .string)
                Attribute("budget", .double, default: .double(0))
                Relationship("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: .cascade)
            }
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .double, default: .double(0))
                Attribute("title", .string, optional: true)
                Attribute("photo", .binary, optional: true, externalStorage: true)
                Relationship("department", to: "Department", inverse: "employees")
            }
        }
    }

    static func employee(_ context: ObjectContext, _ name: String, salary: Double = 1000, in department: ManagedObject? = nil) throws -> ManagedObject {
        let employee = try context.insert("Employee")
        try employee.setValue(name, forKey: "name")
        try employee.setValue(salary, forKey: "salary")
        if let department { try employee.setObject(department, forKey: "department") }
        return employee
    }

    static func department(_ context: ObjectContext, _ name: String) throws -> ManagedObject {
        let department = try context.insert("Department")
        try department.setValue(name, forKey: "name")
        return department
    }

    /// A saved employee's id, in a store of its own.
    static func storeWithEmployee(_ name: String = "Ada", salary: Double = 1000) throws -> (ObjectStore, ObjectID) {
        let store = try StoreUnderTest.inMemory(model: try company())
        let context = store.newContext()
        let employee = try employee(context, name, salary: salary)
        try context.save()
        return (store, employee.objectID)
    }
}
