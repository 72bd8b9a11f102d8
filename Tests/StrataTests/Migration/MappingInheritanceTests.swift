import Foundation
import Testing
@testable import Strata
import StrataLog

/// Properties moving between a parent entity and its sub-entities, and a new parent
/// entity: each entity's objects keep every property they had, inherited or not.
@Suite("Migration: inheritance")
struct MigrationMappingInheritanceTests {
    @Test func addingAParentEntity() throws {
        let v1 = try ObjectModel(version: "1") {
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("salary", .double, default: .double(0))
            }
            Entity("Contractor") {
                Attribute("name", .string)
                Attribute("rate", .double, default: .double(0))
            }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Person", abstract: true) { Attribute("name", .string) }
            Entity("Employee", parent: "Person") { Attribute("salary", .double, default: .double(0)) }
            Entity("Contractor", parent: "Person") { Attribute("rate", .double, default: .double(0)) }
        }
        let mapping = try MappingModel.inferred(from: v1, to: v2)
        #expect(mapping.entityMappings.map(\.name) == ["ContractorToContractor", "EmployeeToEmployee", "AddPerson"])
        let employee = try #require(mapping.entityMapping(named: "EmployeeToEmployee"))
        #expect(employee.kind == .transform)  // its records now belong to a hierarchy
        #expect(employee.attributeSummary == ["name": "name ← $source.name", "salary": "salary ← $source.salary"])
        #expect(mapping.entityMapping(named: "AddPerson")?.kind == .add)
    }

    @Test func movingAPropertyDownToASubentity() throws {
        let v1 = try ObjectModel(version: "1") {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("email", .string, optional: true)
            }
            Entity("Employee", parent: "Person") { Attribute("salary", .double, default: .double(0)) }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Person") { Attribute("name", .string) }
            Entity("Employee", parent: "Person") {
                Attribute("salary", .double, default: .double(0))
                Attribute("email", .string, optional: true)
            }
        }
        let mapping = try MappingModel.inferred(from: v1, to: v2)
        #expect(mapping.entityMapping(named: "PersonToPerson")?.attributeSummary == ["name": "name ← $source.name"])
        #expect(mapping.entityMapping(named: "EmployeeToEmployee")?.attributeSummary == [
            "name": "name ← $source.name", "salary": "salary ← $source.salary", "email": "email ← $source.email",
        ])
    }

    @Test func movingAPropertyUpToTheParent() throws {
        let v1 = try ObjectModel(version: "1") {
            Entity("Person") { Attribute("name", .string) }
            Entity("Employee", parent: "Person") { Attribute("badge", .string, optional: true) }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("badge", .string, optional: true)
            }
            Entity("Employee", parent: "Person") {}
        }
        let mapping = try MappingModel.inferred(from: v1, to: v2)
        #expect(mapping.entityMapping(named: "PersonToPerson")?.attributeSummary["badge"] == "badge ← <default>")
        #expect(mapping.entityMapping(named: "EmployeeToEmployee")?.attributeSummary["badge"] == "badge ← $source.badge")
    }

    @Test func movingARequiredPropertyUpNeedsADefaultForTheParentsObjects() throws {
        let v1 = try ObjectModel(version: "1") {
            Entity("Person") { Attribute("name", .string) }
            Entity("Employee", parent: "Person") { Attribute("badge", .string) }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("badge", .string)
            }
            Entity("Employee", parent: "Person") {}
        }
        expectRefusal(from: v1, to: v2, problems: ["Person.badge: new non-optional attribute without a default value"])
    }

    @Test func anInheritedProblemIsReportedOnceOnTheDeclaringEntity() throws {
        let v1 = try ObjectModel(version: "1") {
            Entity("Person") { Attribute("name", .string) }
            Entity("Employee", parent: "Person") {}
            Entity("Manager", parent: "Employee") {}
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("born", .date)
            }
            Entity("Employee", parent: "Person") {}
            Entity("Manager", parent: "Employee") {}
        }
        expectRefusal(from: v1, to: v2, problems: ["Person.born: new non-optional attribute without a default value"])
    }

    @Test func becomingAbstractIsRefused() throws {
        let v1 = try ObjectModel(version: "1") {
            Entity("Person") { Attribute("name", .string) }
            Entity("Employee", parent: "Person") {}
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Person", abstract: true) { Attribute("name", .string) }
            Entity("Employee", parent: "Person") {}
        }
        expectRefusal(from: v1, to: v2,
                      problems: ["Person: became abstract; the objects of 'Person' would have no entity to become"])
    }

    @Test func relationshipToAParentAcceptsSubentities() throws {
        let v1 = try ObjectModel(version: "1") {
            Entity("Employee") {
                Attribute("name", .string)
                Relationship("desk", to: "Desk", inverse: "owner")
            }
            Entity("Desk") { Relationship("owner", to: "Employee", inverse: "desk") }
        }
        let v2 = try ObjectModel(version: "2") {
            Entity("Person", abstract: true) {
                Attribute("name", .string)
                Relationship("desk", to: "Desk", inverse: "owner")
            }
            Entity("Employee", parent: "Person") {}
            Entity("Desk") { Relationship("owner", to: "Person", inverse: "desk") }
        }
        let mapping = try MappingModel.inferred(from: v1, to: v2)
        #expect(mapping.entityMapping(named: "DeskToDesk")?.relationshipSummary == ["owner": "owner ← $source.owner"])
        #expect(mapping.entityMapping(named: "EmployeeToEmployee")?.relationshipSummary == ["desk": "desk ← $source.desk"])
    }
}
