import Foundation
import Testing
@testable import Strata
import StrataLog
import StrataTestSupport

/// Fetched properties (read-only, predicate-defined to-manys with `$FETCH_SOURCE`) and
/// fetch request templates (named requests with `$variables`), in the DSL and the model
/// file, evaluated on real stores.
@Suite("Model: fetched properties and fetch request templates")
struct FetchedPropertyTests {
    /// Made at each use, not kept in a `static let`: LeakSanitizer (`make test-asan`)
    /// reported the predicate boxes of the once-initialised global as leaked at exit —
    /// a value alive until exit by design, not a leak, but reported against Sources/.
    static var templates: [FetchRequestTemplate] {
        [
            FetchRequestTemplate(name: "EarningAtLeast", entityName: "Employee",
                                 predicate: try! Predicate(format: "salary >= $MINIMUM"), sortKeys: [.descending("salary")]),
            FetchRequestTemplate(name: "InDepartment", entityName: "Employee",
                                 predicate: try! Predicate(format: "department.name == $NAME"), sortKeys: [.ascending("name")]),
        ]
    }

    static func model(_ version: String = "1", departmentEntity: String = "Department", renamed: Bool = false,
                      fetched: Bool = true) throws -> ObjectModel {
        var department = Entity(departmentEntity) {
            Attribute("name", .string)
            Attribute("threshold", .double, default: .double(0))
            Relationship("employees", to: "Employee", inverse: "department", toMany: true)
        }
        if renamed { department = department.renamed(from: "Department") }
        var employee = Entity("Employee") {
            Attribute("name", .string)
            Attribute("salary", .double, default: .double(0))
            Relationship("department", to: departmentEntity, inverse: "employees")
        }
        let manager = Entity("Manager", parent: "Employee") { Attribute("budget", .double, default: .double(0)) }
        if fetched {
            department = department.fetchedProperties(
                FetchedProperty("wellPaid", entity: "Employee",
                                predicate: try Predicate(format: "department == $FETCH_SOURCE AND salary > $FETCH_SOURCE.threshold"),
                                sortKeys: [.descending("salary")]))
            employee = employee.fetchedProperties(
                FetchedProperty("colleagues", entity: "Employee",
                                predicate: try Predicate(format: "department == $FETCH_SOURCE.department AND name != $FETCH_SOURCE.name"),
                                sortKeys: [.ascending("name")]))
        }
        return try ObjectModel(version: version, fetchRequestTemplates: fetched ? templates : []) {
            department
            employee
            manager
        }
    }

    /// Sales (threshold 100): ann 150, bob 90, cy (manager) 300; Ops (threshold 0): dee 50.
    static func seed(_ path: String, model: ObjectModel, department: String = "Department") throws {
        let store = try ObjectStore(at: path, model: model)
        let context = store.newContext()
        func make(_ name: String, threshold: Double) throws -> ManagedObject {
            let object = try context.insert(department)
            try object.setValue(name, forKey: "name")
            try object.setValue(threshold, forKey: "threshold")
            return object
        }
        let sales = try make("Sales", threshold: 100)
        let ops = try make("Ops", threshold: 0)
        for (entity, name, salary, home) in [("Employee", "ann", 150.0, sales), ("Employee", "bob", 90.0, sales),
                                              ("Manager", "cy", 300.0, sales), ("Employee", "dee", 50.0, ops)] {
            let employee = try context.insert(entity)
            try employee.setValue(name, forKey: "name")
            try employee.setValue(salary, forKey: "salary")
            try employee.setObject(home, forKey: "department")
        }
        try context.save()
        try store.close()
    }

    static func names(_ objects: [ManagedObject]) throws -> [String] { try objects.map { try $0.string("name") ?? "?" } }

    /// Checks every fetched property and template on a store at `model`, object by object.
    static func checkEvaluation(_ store: ObjectStore, department: String = "Department") throws {
        let context = store.newContext()
        var request = FetchRequest(entityName: department)
        request.sortKeys = [.ascending("name")]
        let departments = try context.fetch(request)
        #expect(try names(departments) == ["Ops", "Sales"])
        #expect(try names(departments[1].fetchedObjects("wellPaid")) == ["cy", "ann"])
        #expect(try names(departments[0].fetchedObjects("wellPaid")) == ["dee"])
        var people = FetchRequest(entityName: "Employee")
        people.sortKeys = [.ascending("name")]
        let employees = try context.fetch(people)
        #expect(try names(employees) == ["ann", "bob", "cy", "dee"])
        #expect(try names(employees[0].fetchedObjects("colleagues")) == ["bob", "cy"])
        #expect(try names(employees[2].fetchedObjects("colleagues")) == ["ann", "bob"], "a Manager inherits the fetched property")
        #expect(try employees[3].fetchedObjects("colleagues").isEmpty)
        let model = store.model
        #expect(try names(context.fetch(model.fetchRequest(fromTemplate: "EarningAtLeast", substitutionVariables: ["MINIMUM": 100]))) == ["cy", "ann"])
        #expect(try names(context.fetch(model.fetchRequest(fromTemplate: "InDepartment", substitutionVariables: ["NAME": "Sales"]))) == ["ann", "bob", "cy"])
    }

    @Test func fetchedPropertiesAndTemplatesEvaluateOnAStoreLazilyAndSeeUnsavedChanges() throws {
        let dir = try TemporaryDirectory("fetched-properties")
        defer { dir.remove() }
        let path = dir.appending("company.strata")
        let model = try Self.model()
        try Self.seed(path, model: model)
        let store = try ObjectStore(at: path, model: model)
        try Self.checkEvaluation(store)

        // Evaluated on each read: an unsaved raise and a new hire count at once.
        let context = store.newContext()
        let sales = try #require(try context.fetch(FetchRequest(entityName: "Department", predicate: try Predicate(format: "name == 'Sales'"))).first)
        let bob = try #require(try context.fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "name == 'bob'"))).first)
        #expect(try Self.names(sales.fetchedObjects("wellPaid")) == ["cy", "ann"])
        try bob.setValue(200.0, forKey: "salary")
        let eve = try context.insert("Employee")
        try eve.setValue("eve", forKey: "name")
        try eve.setValue(120.0, forKey: "salary")
        try eve.setObject(sales, forKey: "department")
        #expect(try Self.names(sales.fetchedObjects("wellPaid")) == ["cy", "bob", "ann", "eve"])
        #expect(try Self.names(eve.fetchedObjects("colleagues")) == ["ann", "bob", "cy"])

        let unknown = #expect(throws: StrataError.self) { _ = try sales.fetchedObjects("nope") }
        #expect(unknown?.code == .unknownKeyPath && unknown?.context["entity"] == "Department")
        try store.close()
    }

    @Test func objectsCompareByIdentityInAnyPredicate() throws {
        let dir = try TemporaryDirectory("predicate-object")
        defer { dir.remove() }
        let path = dir.appending("company.strata")
        let model = try Self.model(fetched: false)
        try Self.seed(path, model: model)
        let store = try ObjectStore(at: path, model: model)
        let context = store.newContext()
        let ops = try #require(try context.fetch(FetchRequest(entityName: "Department", predicate: try Predicate(format: "name == 'Ops'"))).first)
        #expect(try Self.names(context.fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "department == %@", ops)))) == ["dee"])
        #expect(try context.count(for: FetchRequest(entityName: "Employee", predicate: try Predicate(format: "department != %@", ops.objectID))) == 3)
        #expect(try context.count(for: FetchRequest(entityName: "Department", predicate: try Predicate(format: "ANY employees == %@", ops))) == 0)
        let refused = #expect(throws: StrataError.self) {
            _ = try context.fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "name == %@", ops)))
        }
        #expect(refused?.code == .typeMismatch)
        try store.close()
    }

    @Test func templatesNameTheirProblems() throws {
        let model = try Self.model()
        #expect(model.fetchRequestTemplate(named: "EarningAtLeast")?.variableNames == ["MINIMUM"])
        let unbound = #expect(throws: StrataError.self) { _ = try model.fetchRequest(fromTemplate: "EarningAtLeast") }
        #expect(unbound?.code == .invalidArgument)
        #expect(unbound?.context["template"] == "EarningAtLeast" && unbound?.context["variable"] == "MINIMUM", "\(String(describing: unbound))")
        let unknown = #expect(throws: StrataError.self) { _ = try model.fetchRequest(fromTemplate: "Nope") }
        #expect(unknown?.code == .invalidArgument && unknown?.message.contains("EarningAtLeast, InDepartment") == true)
    }

    @Test func neitherCountsInTheVersionHashAndAStoreOpensWithoutAMigration() throws {
        let plain = try Self.model(fetched: false)
        let rich = try Self.model(fetched: true)
        #expect(plain.versionHash == rich.versionHash)
        #expect(plain.entityVersionHashes == rich.entityVersionHashes)
        #expect(plain != rich)
        let dir = try TemporaryDirectory("fetched-no-migration")
        defer { dir.remove() }
        let path = dir.appending("company.strata")
        try Self.seed(path, model: plain)
        let store = try ObjectStore(at: path, model: rich)
        try Self.checkEvaluation(store)
        try store.close()
    }

    @Test func theModelFileCarriesThemAndReadsBackEqual() throws {
        let model = try Self.model()
        let json = String(decoding: try model.jsonData(), as: UTF8.self)
        #expect(json.contains(#""fetchedProperties""#) && json.contains(#""fetchRequestTemplates""#))
        #expect(json.contains("$FETCH_SOURCE.threshold"))
        let read = try ObjectModel(jsonData: try model.jsonData())
        #expect(read == model)
        #expect(read.fetchedProperty(named: "colleagues", of: "Manager")?.sortKeys == [.ascending("name")])
    }

    @Test(arguments: [
        (#"{"name": "x", "destination": "Employee", "predicate": "salary > $LIMIT"}"#, "Department.x", "$LIMIT"),
        (#"{"name": "x", "destination": "Nobody", "predicate": "TRUEPREDICATE"}"#, "Department.x", "'Nobody' is not in the model"),
        (#"{"name": "name", "destination": "Employee", "predicate": "TRUEPREDICATE"}"#, "Department.name", "cannot share the name"),
        (#"{"name": "x", "destination": "Employee", "predicate": "salery > 1"}"#, "Department.x", "salery"),
        (#"{"name": "x", "destination": "Employee", "predicate": "salary > $FETCH_SOURCE.nope"}"#, "Department.x", "nope"),
        (#"{"name": "x", "destination": "Employee", "predicate": "salary >"}"#, "Department.x", "does not parse"),
    ])
    func anInvalidFetchedPropertyIsAnInvalidModelNamingIt(_ fetched: String, _ place: String, _ words: String) throws {
        let json = """
            {"formatVersion": 1, "version": "1", "entities": [
              {"name": "Department", "properties": [{"kind": "attribute", "name": "name", "type": "string"}],
               "fetchedProperties": [\(fetched)]},
              {"name": "Employee", "properties": [{"kind": "attribute", "name": "salary", "type": "double"}]}]}
            """
        let error = #expect(throws: StrataError.self) { try ObjectModel(jsonData: Data(json.utf8)) }
        #expect(error?.code == .invalidModel)
        #expect(error?.message.contains(place) == true && error?.message.contains(words) == true, "\(String(describing: error))")
    }

    @Test func anInvalidTemplateIsAnInvalidModelNamingIt() throws {
        let json = """
            {"formatVersion": 1, "version": "1", "entities": [
              {"name": "Employee", "properties": [{"kind": "attribute", "name": "salary", "type": "double"}]}],
             "fetchRequestTemplates": [{"name": "Rich", "entity": "Employee", "predicate": "salry > $MIN"}]}
            """
        let error = #expect(throws: StrataError.self) { try ObjectModel(jsonData: Data(json.utf8)) }
        #expect(error?.code == .invalidModel)
        #expect(error?.message.contains("Fetch request template 'Rich'") == true && error?.message.contains("salry") == true,
                "\(String(describing: error))")
    }
}
