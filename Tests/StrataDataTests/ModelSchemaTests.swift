import Foundation
import StrataData
import Testing

/// The entity descriptions `@Model` builds from Swift types and macro options.
@Suite struct ModelSchemaTests {
    @Test func attributeTypesComeFromSwiftTypes() throws {
        let schema = try Schema([Sample.self])
        let entity = try #require(schema.objectModel.entity(named: "Sample"))
        let expected: [String: (AttributeType, Bool)] = [
            "text": (.string, false), "flag": (.bool, false), "int": (.int64, false), "int8": (.int16, false),
            "int16": (.int16, false), "int32": (.int32, false), "int64": (.int64, false), "uint8": (.int16, false),
            "uint16": (.int32, false), "uint32": (.int64, false), "float": (.float, false), "double": (.double, false),
            "decimal": (.decimal, false), "date": (.date, false), "data": (.binary, false), "uuid": (.uuid, false),
            "url": (.url, false), "address": (.composite, false), "level": (.composite, false), "tags": (.composite, false),
            "maybeText": (.string, true), "maybeInt": (.int64, true), "maybeAddress": (.composite, true), "renamed": (.string, false),
        ]
        #expect(Set(entity.attributes.map(\.name)) == Set(expected.keys), "transient and computed properties are not attributes")
        for (name, (type, optional)) in expected {
            let attribute = try #require(entity.attributesByName[name])
            #expect(attribute.type == type, "\(name)")
            #expect(attribute.isOptional == optional, "\(name)")
        }
        #expect(entity.attributesByName["double"]?.defaultValue == .double(0))
        #expect(entity.attributesByName["renamed"]?.renamingIdentifier == "oldName")
        #expect(entity.attributesByName["text"]?.defaultValue == nil)
    }

    @Test func optionsAndRelationships() throws {
        let schema = try Schema([Employee.self, Department.self])
        let employee = try #require(schema.objectModel.entity(named: "Employee"))
        let department = try #require(schema.objectModel.entity(named: "Department"))
        #expect(employee.attributesByName["email"]?.isUnique == true)
        #expect(employee.attributesByName["photo"]?.allowsExternalStorage == true)
        #expect(employee.attributesByName["photo"]?.isOptional == true)
        #expect(employee.attributesByName["salary"]?.isIndexed == true, "#Index")
        #expect(department.attributesByName["name"]?.isUnique == true, "#Unique of one key path")
        #expect(employee.attributesByName["isSelected"] == nil, "@Transient")
        let employees = try #require(department.relationshipsByName["employees"])
        #expect(employees.isToMany && employees.deleteRule == .cascade && employees.inverseName == "department")
        let toDepartment = try #require(employee.relationshipsByName["department"])
        #expect(!toDepartment.isToMany && toDepartment.deleteRule == .nullify && toDepartment.inverseName == "employees")
    }

    @Test func aCompoundUniqueIsAConstraintOfTheEntity() throws {
        let schema = try Schema([Pair.self])
        let entity = try #require(schema.objectModel.entity(named: "Pair"))
        #expect(entity.uniquenessConstraints == [["first", "second"]])
        #expect(entity.attributesByName["first"]?.isUnique == false, "each alone may repeat")
        let (_, context) = try inMemoryContainer(Pair.self)
        context.insert(Pair(first: "a", second: "b"))
        context.insert(Pair(first: "a", second: "c"))
        try context.save()
        context.insert(Pair(first: "a", second: "b"))
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .validationFailed)
        #expect(error?.message.contains("first") == true, "\(String(describing: error))")
    }
}

@Model final class Pair {
    #Unique<Pair>([\.first, \.second])
    var first: String
    var second: String
    init(first: String, second: String) { self.first = first; self.second = second }
}
