import Testing
@testable import Strata

@Suite("Model inheritance")
struct ModelInheritanceTests {
    static func people() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Manager", parent: "Employee") {
                Attribute("budget", .double, default: .double(0))
                Relationship("reports", to: "Employee", inverse: "manager", toMany: true)
            }
            Entity("Person", abstract: true) {
                Attribute("name", .string)
            }
            Entity("Employee", parent: "Person") {
                Attribute("salary", .double, default: .double(0))
                Relationship("manager", to: "Manager", inverse: "reports")
            }
            Entity("Contractor", parent: "Person") {
                Attribute("agency", .string)
            }
            Entity("Director", parent: "Manager")
        }
    }

    @Test func subEntitiesInheritProperties() throws {
        let model = try Self.people()
        let manager = try #require(model.entity(named: "Manager"))
        #expect(manager.properties.map(\.name) == ["name", "salary", "manager", "budget", "reports"])
        #expect(manager.declaredProperties.map(\.name) == ["budget", "reports"])
        #expect(manager.attributesByName.keys.sorted() == ["budget", "name", "salary"])
        #expect(manager.relationshipsByName.keys.sorted() == ["manager", "reports"])
        #expect(manager.property(named: "name")?.attribute?.type == .string)
        let director = try #require(model.entity(named: "Director"))
        #expect(director.properties.count == 5)
        #expect(director.declaredProperties.isEmpty)
    }

    @Test func ancestorsAndKinds() throws {
        let model = try Self.people()
        let director = try #require(model.entity(named: "Director"))
        #expect(director.ancestorNames == ["Manager", "Employee", "Person"])
        #expect(director.isKind(of: "Director"))
        #expect(director.isKind(of: "Person"))
        #expect(!director.isKind(of: "Contractor"))
        #expect(model.entity(named: "Person")?.isKind(of: "Employee") == false)
    }

    @Test func subEntities() throws {
        let model = try Self.people()
        let person = try #require(model.entity(named: "Person"))
        #expect(person.isAbstract)
        #expect(person.subentityNames == ["Contractor", "Employee"])
        #expect(person.allSubentityNames == ["Contractor", "Director", "Employee", "Manager"])
        #expect(model.subentities(of: "Employee").map(\.name) == ["Director", "Manager"])
        #expect(model.subentities(of: "Employee", transitively: false).map(\.name) == ["Manager"])
        #expect(model.subentities(of: "Director").isEmpty)
        #expect(model.subentities(of: "Nobody").isEmpty)
        #expect(model.rootEntities.map(\.name) == ["Person"])
    }

    @Test func relationshipToASubEntityInheritedBySubEntities() throws {
        let model = try Self.people()
        // Director inherits `reports` (declared on Manager) and `manager` (on Employee).
        let director = try #require(model.entity(named: "Director"))
        #expect(director.relationshipsByName["reports"]?.destinationEntityName == "Employee")
        #expect(director.relationshipsByName["manager"]?.inverseName == "reports")
    }

    @Test func parentChangeChangesSubEntityHash() throws {
        let base = try Self.people()
        let changed = try ObjectModel(version: "1", entities: base.entities.map { entity in
            var entity = entity
            if entity.name == "Person" {
                entity.declaredProperties.append(.attribute(
                    AttributeDescription(name: "nickname", type: .string, isOptional: true)))
            }
            return entity
        })
        #expect(changed.versionHash != base.versionHash)
        #expect(changed.entityVersionHashes["Director"] != base.entityVersionHashes["Director"])
        #expect(changed.entity(named: "Director")?.attributesByName["nickname"] != nil)
    }
}
