import Foundation
import Testing
@testable import Strata
import StrataScenarios

@Suite("Model DSL")
struct ModelDSLTests {
    @Test func buildsTheEmployeesModel() throws {
        let model = try EmployeesScenario.v1()
        #expect(model.versionIdentifier == "1")
        #expect(model.entities.map(\.name) == ["Department", "Employee"])

        let employee = try #require(model.entity(named: "Employee"))
        #expect(employee.properties.map(\.name) == ["name", "salary", "photo", "department"])
        let salary = try #require(employee.attributesByName["salary"])
        #expect(salary.type == .double)
        #expect(salary.defaultValue == .double(0))
        #expect(!salary.isOptional)
        let photo = try #require(employee.attributesByName["photo"])
        #expect(photo.isOptional && photo.allowsExternalStorage && photo.type == .binary)
        let department = try #require(employee.relationshipsByName["department"])
        #expect(department.destinationEntityName == "Department")
        #expect(department.inverseName == "employees")
        #expect(!department.isToMany)
        #expect(department.deleteRule == .nullify)

        let employees = try #require(model.entity(named: "Department")?.relationshipsByName["employees"])
        #expect(employees.isToMany && employees.deleteRule == .cascade)
        #expect(model.entity(named: "Nobody") == nil)
    }

    @Test func declarationDefaults() throws {
        let model = try ObjectModel(version: "1") {
            Entity("A") {
                Attribute("x", .int64)
                Relationship("b", to: "B", inverse: "a")
            }
            Entity("B") { Relationship("a", to: "A", inverse: "b") }
        }
        let x = try #require(model.entity(named: "A")?.attributesByName["x"])
        #expect(!x.isOptional && !x.isTransient && !x.allowsExternalStorage && !x.isIndexed && !x.isUnique)
        #expect(x.defaultValue == nil && x.renamingIdentifier == nil && !x.hasValidationRules)
        let b = try #require(model.entity(named: "A")?.relationshipsByName["b"])
        #expect(b.isOptional && !b.isToMany && !b.isOrdered && b.deleteRule == .nullify)
        #expect(b.minimumCount == nil && b.maximumCount == nil && !b.waivesInverse)
    }

    @Test func modifiersSetRulesAndRenaming() throws {
        let model = try ObjectModel(version: "2") {
            Entity("Todo") {
                Attribute("name", .string, indexed: true, unique: true)
                    .renamed(from: "title")
                    .length(min: 1, max: 200)
                    .pattern("[A-Za-z ]+")
                Attribute("priority", .int16, default: .int(3))
                    .minimum(.int(1))
                    .maximum(.int(5))
                Relationship("tags", to: "Tag", toMany: true, ordered: true)
                    .withoutInverse()
                    .count(max: 10)
                    .renamed(from: "labels")
            }
            .renamed(from: "Task")
            Entity("Tag") { Attribute("label", .string) }
        }
        let todo = try #require(model.entity(named: "Todo"))
        #expect(todo.renamingIdentifier == "Task")
        let name = try #require(todo.attributesByName["name"])
        #expect(name.renamingIdentifier == "title")
        #expect(name.minimumLength == 1 && name.maximumLength == 200)
        #expect(name.pattern == "[A-Za-z ]+")
        #expect(name.isIndexed && name.isUnique)
        let priority = try #require(todo.attributesByName["priority"])
        #expect(priority.minimumValue == .int(1) && priority.maximumValue == .int(5))
        let tags = try #require(todo.relationshipsByName["tags"])
        #expect(tags.waivesInverse && tags.inverseName == nil && tags.isOrdered)
        #expect(tags.maximumCount == 10 && tags.minimumCount == nil)
        #expect(tags.renamingIdentifier == "labels")
    }

    @Test func controlFlowAndSharedProperties() throws {
        let shared: [PropertyDescription] = [
            .attribute(AttributeDescription(name: "title", type: .string)),
            .attribute(AttributeDescription(name: "rating", type: .int16, isOptional: true)),
        ]
        let kinds = ["Wine", "Coffee"]
        let withExtra = true
        let model = try ObjectModel(version: "1") {
            for kind in kinds {
                Entity("\(kind)Note") {
                    shared
                    if withExtra {
                        Attribute("extra", .string, optional: true)
                    } else {
                        Attribute("other", .string, optional: true)
                    }
                }
            }
            if withExtra {
                EntityDescription(name: "Extra", properties: shared)
            }
        }
        #expect(model.entities.map(\.name) == ["CoffeeNote", "Extra", "WineNote"])
        #expect(model.entity(named: "WineNote")?.properties.map(\.name) == ["title", "rating", "extra"])
    }

    @Test func entitiesAreSortedByName() throws {
        let model = try ObjectModel(version: "1") {
            Entity("b")
            Entity("C")
            Entity("a")
            Entity("B")
        }
        // Byte order: upper case before lower case, the same on every machine.
        #expect(model.entities.map(\.name) == ["B", "C", "a", "b"])
    }

    @Test func programmaticConstructionEqualsDSL() throws {
        let dsl = try EmployeesScenario.v1()
        let code = try ObjectModel(version: "1", entities: [
            EntityDescription(name: "Employee", properties: [
                .attribute(AttributeDescription(name: "name", type: .string)),
                .attribute(AttributeDescription(name: "salary", type: .double, defaultValue: .double(0))),
                .attribute(AttributeDescription(
                    name: "photo", type: .binary, isOptional: true, allowsExternalStorage: true)),
                .relationship(RelationshipDescription(
                    name: "department", destinationEntityName: "Department", inverseName: "employees")),
            ]),
            EntityDescription(name: "Department", properties: [
                .attribute(AttributeDescription(name: "name", type: .string)),
                .relationship(RelationshipDescription(
                    name: "employees", destinationEntityName: "Employee", inverseName: "department",
                    isToMany: true, deleteRule: .cascade)),
            ]),
        ])
        #expect(code == dsl)
        #expect(code.versionHash == dsl.versionHash)
    }

    @Test func nullDefaultMeansNoDefault() {
        let attribute = AttributeDescription(name: "x", type: .string, isOptional: true, defaultValue: .null)
        #expect(attribute.defaultValue == nil)
    }

    @Test func propertyLookup() throws {
        let employee = try #require(try EmployeesScenario.v1().entity(named: "Employee"))
        #expect(employee.property(named: "salary")?.attribute?.type == .double)
        #expect(employee.property(named: "department")?.relationship?.destinationEntityName == "Department")
        #expect(employee.property(named: "salary")?.relationship == nil)
        #expect(employee.property(named: "missing") == nil)
        #expect(employee.storedAttributes.map(\.name) == ["name", "salary", "photo"])
        #expect(employee.relationships.map(\.name) == ["department"])
    }

    @Test func valueConformance() {
        #expect(Value.int(40_000).conforms(to: .int32))
        #expect(!Value.int(40_000).conforms(to: .int16))
        #expect(!Value.int(Int64(Int32.max) + 1).conforms(to: .int32))
        #expect(Value.int(.max).conforms(to: .int64))
        #expect(Value.double(1).conforms(to: .float))
        #expect(!Value.int(0).conforms(to: .double))
        #expect(Value.null.conforms(to: .uuid))
        #expect(Value.composite(Data("[]".utf8)).conforms(to: .composite))
        #expect(!Value.binary(Data()).conforms(to: .composite))
        for type in AttributeType.allCases {
            #expect(Value.null.conforms(to: type))
        }
    }
}
