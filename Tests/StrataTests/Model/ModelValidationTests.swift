import Foundation
import Testing
@testable import Strata

@Suite("Model validation")
struct ModelValidationTests {
    // MARK: Relationships

    @Test func unknownDestination() {
        expectInvalidModel(entity: "Employee", property: "department", mentioning: "Departmnt") {
            try ObjectModel(version: "1") {
                Entity("Employee") {
                    Relationship("department", to: "Departmnt", inverse: "employees")
                }
            }
        }
    }

    @Test func unknownInverse() {
        expectInvalidModel(entity: "Department", property: "employees", mentioning: "dept") {
            try ObjectModel(version: "1") {
                Entity("Department") {
                    Relationship("employees", to: "Employee", inverse: "dept", toMany: true)
                }
                Entity("Employee") {
                    Relationship("department", to: "Department", inverse: "employees")
                }
            }
        }
    }

    @Test func inverseThatIsAnAttribute() {
        expectInvalidModel(entity: "Department", property: "employees", mentioning: "attribute") {
            try ObjectModel(version: "1") {
                Entity("Department") {
                    Relationship("employees", to: "Employee", inverse: "department", toMany: true)
                }
                Entity("Employee") { Attribute("department", .string) }
            }
        }
    }

    @Test func inverseThatPointsElsewhere() {
        expectInvalidModel(entity: "Department", property: "employees", mentioning: "not back to") {
            try ObjectModel(version: "1") {
                Entity("Department") {
                    Relationship("employees", to: "Employee", inverse: "office", toMany: true)
                }
                Entity("Office") {
                    Relationship("staff", to: "Employee", inverse: "office", toMany: true)
                }
                Entity("Employee") {
                    Relationship("office", to: "Office", inverse: "staff")
                }
            }
        }
    }

    @Test func inverseThatNamesAnotherInverse() {
        expectInvalidModel(entity: "Department", property: "employees", mentioning: "managers") {
            try ObjectModel(version: "1") {
                Entity("Department") {
                    Relationship("employees", to: "Employee", inverse: "department", toMany: true)
                    Relationship("managers", to: "Employee", inverse: "department", toMany: true)
                }
                Entity("Employee") {
                    Relationship("department", to: "Department", inverse: "managers")
                }
            }
        }
    }

    @Test func missingInverseWithoutWaiver() {
        expectInvalidModel(entity: "Task", property: "owner", mentioning: "no inverse") {
            try ObjectModel(version: "1") {
                Entity("Task") { Relationship("owner", to: "User") }
                Entity("User") { Attribute("name", .string) }
            }
        }
    }

    @Test func missingInverseWithWaiverIsValid() throws {
        let model = try ObjectModel(version: "1") {
            Entity("Task") { Relationship("owner", to: "User").withoutInverse() }
            Entity("User") { Attribute("name", .string) }
        }
        #expect(model.entity(named: "Task")?.relationshipsByName["owner"]?.waivesInverse == true)
    }

    @Test func inverseAndWaiverTogether() {
        expectInvalidModel(entity: "A", property: "b", mentioning: "waives") {
            try ObjectModel(version: "1") {
                Entity("A") { Relationship("b", to: "B", inverse: "a").withoutInverse() }
                Entity("B") { Relationship("a", to: "A", inverse: "b") }
            }
        }
    }

    @Test func reflexiveInverseIsValid() throws {
        let model = try ObjectModel(version: "1") {
            Entity("Person") {
                Relationship("spouse", to: "Person", inverse: "spouse")
                Relationship("friends", to: "Person", inverse: "friends", toMany: true)
            }
        }
        #expect(model.entity(named: "Person")?.relationships.count == 2)
    }

    @Test func orderedToOne() {
        expectInvalidModel(entity: "A", property: "b", mentioning: "ordered") {
            try ObjectModel(version: "1") {
                Entity("A") { Relationship("b", to: "B", inverse: "a", ordered: true) }
                Entity("B") { Relationship("a", to: "A", inverse: "b") }
            }
        }
    }

    @Test func countsOnToOne() {
        expectInvalidModel(entity: "A", property: "b", mentioning: "to-many") {
            try ObjectModel(version: "1") {
                Entity("A") { Relationship("b", to: "B", inverse: "a").count(min: 1) }
                Entity("B") { Relationship("a", to: "A", inverse: "b") }
            }
        }
    }

    @Test func minimumCountAboveMaximum() {
        expectInvalidModel(entity: "Subject", property: "questions", mentioning: "greater") {
            try ObjectModel(version: "1") {
                Entity("Subject") {
                    Relationship("questions", to: "Question", inverse: "subject", toMany: true)
                        .count(min: 5, max: 2)
                }
                Entity("Question") { Relationship("subject", to: "Subject", inverse: "questions") }
            }
        }
    }

    @Test func negativeCount() {
        expectInvalidModel(entity: "Subject", property: "questions", mentioning: "negative") {
            try ObjectModel(version: "1") {
                Entity("Subject") {
                    Relationship("questions", to: "Question", inverse: "subject", toMany: true)
                        .count(min: -1)
                }
                Entity("Question") { Relationship("subject", to: "Subject", inverse: "questions") }
            }
        }
    }

    @Test func maximumCountOfZero() {
        expectInvalidModel(entity: "Subject", property: "questions", mentioning: "no limit") {
            try ObjectModel(version: "1") {
                Entity("Subject") {
                    Relationship("questions", to: "Question", inverse: "subject", toMany: true)
                        .count(max: 0)
                }
                Entity("Question") { Relationship("subject", to: "Subject", inverse: "questions") }
            }
        }
    }

    // MARK: Names

    @Test func duplicateEntity() {
        expectInvalidModel(entity: "Task", mentioning: "twice") {
            try ObjectModel(version: "1") {
                Entity("Task") { Attribute("title", .string) }
                Entity("Task") { Attribute("name", .string) }
            }
        }
    }

    @Test func duplicateProperty() {
        expectInvalidModel(entity: "Task", property: "title", mentioning: "twice") {
            try ObjectModel(version: "1") {
                Entity("Task") {
                    Attribute("title", .string)
                    Attribute("title", .int64)
                }
            }
        }
    }

    @Test func attributeAndRelationshipWithTheSameName() {
        expectInvalidModel(entity: "Task", property: "owner", mentioning: "twice") {
            try ObjectModel(version: "1") {
                Entity("Task") {
                    Attribute("owner", .string)
                    Relationship("owner", to: "Task").withoutInverse()
                }
            }
        }
    }

    @Test func propertyClashingWithInherited() {
        expectInvalidModel(entity: "Manager", property: "name", mentioning: "Person") {
            try ObjectModel(version: "1") {
                Entity("Person", abstract: true) { Attribute("name", .string) }
                Entity("Employee", parent: "Person") { Attribute("salary", .double) }
                Entity("Manager", parent: "Employee") { Attribute("name", .string) }
            }
        }
    }

    @Test func emptyEntityName() {
        expectInvalidModel(entity: "", mentioning: "empty") {
            try ObjectModel(version: "1") { Entity("") }
        }
    }

    @Test func emptyPropertyName() {
        expectInvalidModel(entity: "Task", property: "", mentioning: "empty") {
            try ObjectModel(version: "1") { Entity("Task") { Attribute("", .string) } }
        }
    }

    @Test(arguments: ["first name", "1st", "naïve", "a-b", "a.b", "$x"])
    func propertyNameThatIsNotAnIdentifier(name: String) {
        expectInvalidModel(entity: "Task", property: name, mentioning: "identifier") {
            try ObjectModel(version: "1") { Entity("Task") { Attribute(name, .string) } }
        }
    }

    @Test func entityNameThatIsNotAnIdentifier() {
        expectInvalidModel(entity: "Tasting Note", mentioning: "identifier") {
            try ObjectModel(version: "1") { Entity("Tasting Note") }
        }
    }

    @Test func renamingIdentifierThatIsNotAnIdentifier() {
        expectInvalidModel(entity: "Task", property: "name", mentioning: "renaming") {
            try ObjectModel(version: "1") {
                Entity("Task") { Attribute("name", .string).renamed(from: "the title") }
            }
        }
    }

    @Test func duplicateRenamingIdentifier() {
        expectInvalidModel(entity: "Task", property: "heading", mentioning: "title") {
            try ObjectModel(version: "1") {
                Entity("Task") {
                    Attribute("name", .string).renamed(from: "title")
                    Attribute("heading", .string).renamed(from: "title")
                }
            }
        }
    }

    @Test func identifiersThatAreValid() throws {
        let model = try ObjectModel(version: "1") {
            Entity("_Private9") { Attribute("snake_case_2", .string) }
        }
        #expect(model.entities.count == 1)
    }

    // MARK: Inheritance

    @Test func unknownParent() {
        expectInvalidModel(entity: "Manager", mentioning: "Employe") {
            try ObjectModel(version: "1") {
                Entity("Manager", parent: "Employe")
            }
        }
    }

    @Test func inheritanceCycle() {
        expectInvalidModel(entity: "A", mentioning: "cycle") {
            try ObjectModel(version: "1") {
                Entity("A", parent: "C")
                Entity("B", parent: "A")
                Entity("C", parent: "B")
            }
        }
    }

    @Test func entityThatIsItsOwnParent() {
        expectInvalidModel(entity: "A", mentioning: "cycle") {
            try ObjectModel(version: "1") { Entity("A", parent: "A") }
        }
    }

    // MARK: Attributes

    @Test func defaultOfTheWrongType() {
        expectInvalidModel(entity: "Employee", property: "salary", mentioning: "double") {
            try ObjectModel(version: "1") {
                Entity("Employee") { Attribute("salary", .double, default: .int(0)) }
            }
        }
    }

    @Test(arguments: [
        (AttributeType.bool, Value.string("false")),
        (.int16, .int(70_000)),
        (.int32, .double(1)),
        (.decimal, .double(1.5)),
        (.date, .string("2024-01-01")),
        (.uuid, .string("not a uuid")),
        (.url, .string("https://example.com")),
        (.binary, .string("AAAA")),
        (.composite, .binary(Data("{}".utf8))),
        (.string, .int(1)),
    ])
    func defaultsThatDoNotFit(type: AttributeType, value: Value) {
        expectInvalidModel(entity: "Thing", property: "field", mentioning: "default") {
            try ObjectModel(version: "1") {
                Entity("Thing") { Attribute("field", type, optional: true, default: value) }
            }
        }
    }

    @Test func nullDefaultSetAfterwards() {
        var attribute = AttributeDescription(name: "field", type: .string)
        attribute.defaultValue = .null
        expectInvalidModel(entity: "Thing", property: "field", mentioning: "nil") {
            try ObjectModel(version: "1", entities: [
                EntityDescription(name: "Thing", properties: [.attribute(attribute)]),
            ])
        }
    }

    @Test func compositeDefaultThatIsNotJSON() {
        expectInvalidModel(entity: "Note", property: "ingredients", mentioning: "JSON") {
            try ObjectModel(version: "1") {
                Entity("Note") {
                    Attribute("ingredients", .composite, default: .composite(Data("[1,".utf8)))
                }
            }
        }
    }

    @Test func externalStorageOnNonBinary() {
        expectInvalidModel(entity: "Employee", property: "bio", mentioning: "binary") {
            try ObjectModel(version: "1") {
                Entity("Employee") { Attribute("bio", .string, externalStorage: true) }
            }
        }
    }

    @Test func transientAndIndexed() {
        expectInvalidModel(entity: "Person", property: "mood", mentioning: "transient") {
            try ObjectModel(version: "1") {
                Entity("Person") { Attribute("mood", .string, transient: true, indexed: true) }
            }
        }
    }

    @Test func minimumValueAboveMaximum() {
        expectInvalidModel(entity: "Person", property: "age", mentioning: "greater") {
            try ObjectModel(version: "1") {
                Entity("Person") { Attribute("age", .int16).minimum(.int(150)).maximum(.int(0)) }
            }
        }
    }

    @Test func minimumDateAboveMaximum() {
        expectInvalidModel(entity: "Event", property: "timeStamp", mentioning: "greater") {
            try ObjectModel(version: "1") {
                Entity("Event") {
                    Attribute("timeStamp", .date)
                        .minimum(.date(Date(timeIntervalSince1970: 100)))
                        .maximum(.date(Date(timeIntervalSince1970: 0)))
                }
            }
        }
    }

    @Test func rangeBoundOfTheWrongType() {
        expectInvalidModel(entity: "Person", property: "age", mentioning: "minimum") {
            try ObjectModel(version: "1") {
                Entity("Person") { Attribute("age", .int16).minimum(.double(0)) }
            }
        }
    }

    @Test func rangeOnAString() {
        expectInvalidModel(entity: "Person", property: "name", mentioning: "numeric and date") {
            try ObjectModel(version: "1") {
                Entity("Person") { Attribute("name", .string).minimum(.string("a")) }
            }
        }
    }

    @Test func minimumLengthAboveMaximum() {
        expectInvalidModel(entity: "Person", property: "name", mentioning: "greater") {
            try ObjectModel(version: "1") {
                Entity("Person") { Attribute("name", .string).length(min: 10, max: 2) }
            }
        }
    }

    @Test func negativeLength() {
        expectInvalidModel(entity: "Person", property: "name", mentioning: "negative") {
            try ObjectModel(version: "1") {
                Entity("Person") { Attribute("name", .string).length(min: -1) }
            }
        }
    }

    @Test func lengthOnANumber() {
        expectInvalidModel(entity: "Person", property: "age", mentioning: "length") {
            try ObjectModel(version: "1") {
                Entity("Person") { Attribute("age", .int64).length(max: 3) }
            }
        }
    }

    @Test func invalidPattern() {
        expectInvalidModel(entity: "Person", property: "email", mentioning: "regular expression") {
            try ObjectModel(version: "1") {
                Entity("Person") { Attribute("email", .string).pattern("([a-z]+") }
            }
        }
    }

    @Test func patternOnANumber() {
        expectInvalidModel(entity: "Person", property: "age", mentioning: "pattern") {
            try ObjectModel(version: "1") {
                Entity("Person") { Attribute("age", .int64).pattern("[0-9]+") }
            }
        }
    }

    @Test func validRulesPass() throws {
        let model = try ObjectModel(version: "1") {
            Entity("Person") {
                Attribute("age", .int16).minimum(.int(0)).maximum(.int(150))
                Attribute("email", .string).length(min: 3, max: 254).pattern("[^@]+@[^@]+")
                Attribute("avatar", .binary, optional: true, externalStorage: true).length(max: 1_000_000)
                Attribute("born", .date, optional: true)
                    .minimum(.date(Date(timeIntervalSince1970: 0)))
                Attribute("price", .decimal, default: .decimal(Decimal(string: "9.99") ?? 0))
                    .minimum(.decimal(0))
            }
        }
        #expect(model.entity(named: "Person")?.attributes.count == 5)
    }

    @Test func errorsAreDeterministic() {
        // Two problems: the one in the entity that sorts first is reported, every time.
        for _ in 0..<3 {
            expectInvalidModel(entity: "Alpha", property: "x") {
                try ObjectModel(version: "1") {
                    Entity("Zulu") { Attribute("y", .string, externalStorage: true) }
                    Entity("Alpha") { Attribute("x", .string, externalStorage: true) }
                }
            }
        }
    }
}
