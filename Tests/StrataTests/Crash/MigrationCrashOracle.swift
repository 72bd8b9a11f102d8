import Foundation
import StrataTestSupport
@testable import Strata
@testable import StrataCrashWorker

/// What a store left by a killed migration must be: exactly the v1 store the seed
/// built, or exactly its v2 migration — never a mix, never missing objects.
enum MigrationCrashOracle {
    enum Version: String { case v1, v2 }

    /// Opens the store the way an application would after the crash — with v1, and with
    /// v2 only if v1 is refused as incompatible — and lists every way it is not exactly
    /// the seed's store at that version. Nil version: it opened at neither.
    static func check(_ path: String, seed: UInt64) -> (version: Version?, problems: [String]) {
        do {
            return (.v1, try checkV1(path, seed: seed))
        } catch let error as StrataError where error.code == .incompatibleModel {
            // Refused by hash: the store says it is not v1, so it must be all of v2.
        } catch {
            return (nil, ["opening with v1 failed: \(error)"])
        }
        do {
            return (.v2, try checkV2(path, seed: seed))
        } catch {
            return (nil, ["v1 refused the store as incompatible, and opening with v2 failed: \(error)"])
        }
    }

    static func options() -> StoreOptions { MigrationWorkload.options(logger: .quiet) }

    static func checkV1(_ path: String, seed: UInt64) throws -> [String] {
        let store = try ObjectStore(at: path, model: MigrationWorkload.v1(), options: options())
        defer { try? store.close() }
        var problems = stagingProblems(path)
        let context = store.newContext()
        let employees = try context.fetch(FetchRequest(entityName: "Employee"))
        problems += try checkEmployees(employees, seed: seed) { employee in try employee.data("photo") }
        problems += try checkDepartments(context, seed: seed)
        let report = try store.verify()
        if !report.isSound { problems.append("v1 verify: \(report)") }
        return problems
    }

    static func checkV2(_ path: String, seed: UInt64) throws -> [String] {
        let store = try ObjectStore(at: path, model: MigrationWorkload.v2(), options: options())
        defer { try? store.close() }
        var problems = stagingProblems(path)
        let context = store.newContext()
        let employees = try context.fetch(FetchRequest(entityName: "Employee"))
        problems += try checkEmployees(employees, seed: seed) { employee in
            guard let profile = try employee.object("profile") else { return nil }
            // The inverse must lead back, or the photo belongs to someone else.
            guard try profile.object("employee") == employee else { return Data("wrong inverse".utf8) }
            return try profile.data("photo")
        }
        let photos = try context.count(for: FetchRequest(entityName: "Photo"))
        if photos != MigrationWorkload.employeeCount { problems.append("v2 holds \(photos) photos, expected \(MigrationWorkload.employeeCount)") }
        problems += try checkDepartments(context, seed: seed)
        let report = try store.verify()
        if !report.isSound { problems.append("v2 verify: \(report)") }
        return problems
    }

    /// A leftover staging directory after an open would be a migration half-cleaned.
    static func stagingProblems(_ path: String) -> [String] {
        FileManager.default.fileExists(atPath: path + "/staging") ? ["staging/ still exists after open"] : []
    }

    /// Every employee of the seed once, with its name, salary, department and photo
    /// (read by `photo`: the attribute in v1, the profile's in v2), and nothing else.
    static func checkEmployees(_ employees: [ManagedObject], seed: UInt64, photo: (ManagedObject) throws -> Data?) throws -> [String] {
        var expected: [String: MigrationWorkload.EmployeeSpec] = [:]
        for index in 0..<MigrationWorkload.employeeCount {
            let spec = MigrationWorkload.employee(index, seed: seed)
            expected[spec.name] = spec
        }
        var problems: [String] = []
        if employees.count != expected.count { problems.append("\(employees.count) employees, expected \(expected.count)") }
        for employee in employees {
            let name = try employee.string("name") ?? "<nil>"
            guard let spec = expected.removeValue(forKey: name) else {
                problems.append("unexpected or duplicate employee \(name)")
                continue
            }
            if try employee.double("salary") != spec.salary { problems.append("\(name): salary \(String(describing: try employee.double("salary"))), expected \(spec.salary)") }
            let department = try employee.object("department")?.string("name")
            if department != MigrationWorkload.departmentNames[spec.department] { problems.append("\(name): department \(department ?? "<nil>")") }
            let bytes = try photo(employee)
            if bytes != Data(spec.photo) { problems.append("\(name): photo \(bytes.map { "\($0.count) bytes differing" } ?? "missing"), expected \(spec.photo.count) bytes") }
        }
        if !expected.isEmpty { problems.append("missing employees: \(expected.keys.sorted().prefix(5)) (\(expected.count) in all)") }
        return Array(problems.prefix(20))
    }

    /// The three departments, each holding exactly its employees.
    static func checkDepartments(_ context: ObjectContext, seed: UInt64) throws -> [String] {
        var expected = Array(repeating: 0, count: MigrationWorkload.departmentNames.count)
        for index in 0..<MigrationWorkload.employeeCount { expected[MigrationWorkload.employee(index, seed: seed).department] += 1 }
        let departments = try context.fetch(FetchRequest(entityName: "Department"))
        var problems: [String] = []
        if departments.count != expected.count { problems.append("\(departments.count) departments, expected \(expected.count)") }
        for department in departments {
            let name = try department.string("name") ?? "<nil>"
            guard let index = MigrationWorkload.departmentNames.firstIndex(of: name) else {
                problems.append("unexpected department \(name)")
                continue
            }
            let count = try department.count("employees")
            if count != expected[index] { problems.append("department \(name) has \(count) employees, expected \(expected[index])") }
        }
        return problems
    }
}
