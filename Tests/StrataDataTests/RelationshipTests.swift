import Foundation
import StrataData
import Testing

/// Relationships through the typed API: inverses kept, one instance per object,
/// delete rules, counts, and models inserted with the graph they refer to.
@Suite struct RelationshipTests {
    @Test func settingAToOneUpdatesTheInverse() throws {
        let (_, context) = try inMemoryContainer(Employee.self, Department.self)
        let (sales, research) = try insertStaff(context)
        let ada = try #require(try context.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "Ada" })).first)
        #expect(ada.department === sales, "one model instance per object")
        ada.department = research
        #expect(research.employees.map(\.name).sorted() == ["Ada", "Barbara", "Edsger"])
        #expect(sales.employees.map(\.name).sorted() == ["Grace", "Linus"])
        try context.save()
        let other = ModelContext(context.container)
        let reread = try other.fetch(FetchDescriptor<Department>(predicate: #Predicate { $0.name == "Research" }))
        #expect(reread.first?.employees.count == 3)
    }

    @Test func assigningAToManyAndInsertingTheGraph() throws {
        let (_, context) = try inMemoryContainer(Employee.self, Department.self)
        let lab = Department(name: "Lab")
        let a = Employee(name: "A", email: "a@x")
        let b = Employee(name: "B", email: "b@x")
        lab.employees = [a, b]
        context.insert(lab)   // a and b come along, as in SwiftData
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Employee>()) == 2)
        #expect(a.department === lab)
        lab.employees = [b]
        #expect(a.department == nil)
        try context.save()
    }

    @Test func cascadeAndNullify() throws {
        let (_, context) = try inMemoryContainer(Employee.self, Department.self)
        let (sales, research) = try insertStaff(context)
        let barbara = try #require(research.employees.first { $0.name == "Barbara" })
        context.delete(barbara)          // nullify: Research loses her
        #expect(research.employees.map(\.name) == ["Edsger"])
        context.delete(sales)            // cascade: Sales's three employees go too
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Employee>()).map(\.name) == ["Edsger"])
        #expect(try context.fetchCount(FetchDescriptor<Department>()) == 1)
    }

    @Test func denyAndCounts() throws {
        let (_, context) = try inMemoryContainer(Team.self, Member.self)
        let team = Team(name: "core")
        let member = Member(name: "m")
        member.team = team
        context.insert(member)
        try context.save()
        // deny: a team with members cannot go.
        let denied = #expect(throws: StrataError.self) { try context.delete(checking: team) }
        #expect(denied?.code == .deleteDenied)
        // maximumModelCount 2, checked at save.
        for name in ["n", "o"] {
            let extra = Member(name: name)
            extra.team = team
            context.insert(extra)
        }
        let tooMany = #expect(throws: StrataError.self) { try context.save() }
        #expect(tooMany?.code == .validationFailed)
        context.rollback()
        #expect(team.members.count == 1)
    }

    @Test func minimumModelCountIsCheckedAtSave() throws {
        let (_, context) = try inMemoryContainer(Crew.self, Sailor.self)
        let crew = Crew(name: "empty")
        context.insert(crew)
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .validationFailed)
        #expect(error?.message.contains("sailors") == true, "\(String(describing: error))")
        crew.sailors = [Sailor(name: "s")]
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Sailor>()) == 1)
        // The schema keeps the counts and the renaming identifier.
        let schema = try Schema([Team.self, Member.self])
        let members = try #require(schema.objectModel.entity(named: "Team")?.relationshipsByName["members"])
        #expect(members.maximumCount == 2 && members.minimumCount == nil && members.renamingIdentifier == "crew")
        #expect(members.deleteRule == .deny)
    }

    @Test func deleteModelWhere() throws {
        let (_, context) = try inMemoryContainer(Employee.self, Department.self)
        try insertStaff(context)
        try context.delete(model: Employee.self, where: #Predicate { $0.salary > 150 })
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["Ada", "Barbara", "Edsger"])
    }
}

@Model final class Team {
    var name: String
    @Relationship(deleteRule: .deny, minimumModelCount: 0, maximumModelCount: 2, originalName: "crew", inverse: \Member.team)
    var members: [Member] = []
    init(name: String) { self.name = name }
}

@Model final class Member {
    var name: String
    var team: Team?
    init(name: String) { self.name = name }
}

@Model final class Crew {
    var name: String
    @Relationship(deleteRule: .cascade, minimumModelCount: 1, inverse: \Sailor.crew) var sailors: [Sailor] = []
    init(name: String) { self.name = name }
}

@Model final class Sailor {
    var name: String
    var crew: Crew?
    init(name: String) { self.name = name }
}
