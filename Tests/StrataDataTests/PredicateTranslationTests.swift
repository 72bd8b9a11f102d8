import Foundation
import StrataData
import Testing

/// Each `#Predicate` form the store runs, checked against the names it selects, and
/// each refused form with its error.
@Suite struct PredicateTranslationTests {
    func names(_ predicate: Foundation.Predicate<Employee>) throws -> [String] {
        let (_, context) = try inMemoryContainer(Employee.self, Department.self)
        try insertStaff(context)
        return try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.name)])).map(\.name)
    }

    @Test func comparisons() throws {
        #expect(try names(#Predicate { $0.salary > 150 }) == ["Grace", "Linus"])
        #expect(try names(#Predicate { $0.salary >= 150 }) == ["Edsger", "Grace", "Linus"])
        #expect(try names(#Predicate { $0.salary < 100 }) == ["Ada"])
        #expect(try names(#Predicate { $0.salary <= 100 }) == ["Ada", "Barbara"])
        #expect(try names(#Predicate { $0.name == "Grace" }) == ["Grace"])
        #expect(try names(#Predicate { $0.name != "Grace" }) == ["Ada", "Barbara", "Edsger", "Linus"])
        #expect(try names(#Predicate { 100 > $0.salary }) == ["Ada"], "a value on the left flips the operator")
        let limit = 200.0
        #expect(try names(#Predicate { $0.salary >= limit }) == ["Grace", "Linus"], "captured values")
    }

    @Test func logic() throws {
        #expect(try names(#Predicate { $0.salary > 100 && $0.salary < 250 }) == ["Edsger", "Grace"])
        #expect(try names(#Predicate { $0.salary < 100 || $0.name == "Linus" }) == ["Ada", "Linus"])
        #expect(try names(#Predicate { !($0.salary > 100) }) == ["Ada", "Barbara"])
    }

    @Test func optionalChainingThroughAToOne() throws {
        #expect(try names(#Predicate { $0.department?.name == "Research" }) == ["Barbara", "Edsger"])
        #expect(try names(#Predicate { $0.salary >= 100 && $0.department?.name == "Sales" }) == ["Grace", "Linus"])
    }

    @Test func strings() throws {
        #expect(try names(#Predicate { $0.name.contains("r") }) == ["Barbara", "Edsger", "Grace"])
        #expect(try names(#Predicate { $0.name.starts(with: "Gr") }) == ["Grace"])
        #expect(try names(#Predicate { $0.email.starts(with: "l") }) == ["Linus"])
    }

    @Test func nilChecks() throws {
        let (_, context) = try inMemoryContainer(Employee.self, Department.self)
        try insertStaff(context)
        let loner = Employee(name: "Zed", email: "zed@example.com")
        loner.photo = Data([1, 2, 3])
        context.insert(loner)
        try context.save()
        let withPhoto = try context.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.photo != nil })).map(\.name)
        #expect(withPhoto == ["Zed"])
        let noDepartment = try context.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.department == nil })).map(\.name)
        #expect(noDepartment == ["Zed"])
    }

    @Test func listContainsProperty() throws {
        let wanted = ["Ada", "Linus", "Nobody"]
        #expect(try names(#Predicate { wanted.contains($0.name) }) == ["Ada", "Linus"])
    }

    @Test func containsWhereOnAToMany() throws {
        let (_, context) = try inMemoryContainer(Employee.self, Department.self)
        try insertStaff(context)
        let rich = try context.fetch(FetchDescriptor<Department>(predicate: #Predicate { $0.employees.contains(where: { $0.salary > 200 }) }))
        #expect(rich.map(\.name) == ["Sales"])
        let either = try context.fetch(FetchDescriptor<Department>(
            predicate: #Predicate { $0.employees.contains(where: { $0.salary < 60 || $0.name == "Edsger" }) },
            sortBy: [SortDescriptor(\.name)]))
        #expect(either.map(\.name) == ["Research", "Sales"])
    }

    @Test func refusedFormsNameThePart() throws {
        let (_, context) = try inMemoryContainer(Employee.self, Department.self)
        try insertStaff(context)
        func refusal<T: PersistentModel>(_ predicate: Foundation.Predicate<T>) -> StrataError? {
            #expect(throws: StrataError.self) { _ = try context.fetch(FetchDescriptor(predicate: predicate)) }
        }
        // Arithmetic is not run in the store.
        let arithmetic = refusal(#Predicate<Employee> { $0.salary * 2 > 300 })
        #expect(arithmetic?.code == .untranslatablePredicate)
        #expect(arithmetic?.message.contains("Arithmetic") == true)
        // A transient property is not stored.
        let transient = refusal(#Predicate<Employee> { $0.isSelected })
        #expect(transient?.code == .untranslatablePredicate)
        #expect(transient?.message.contains("not a persisted property") == true)
        // && inside contains(where:) would not mean one element matching both.
        let conjunction = refusal(#Predicate<Department> { $0.employees.contains(where: { $0.salary > 100 && $0.name == "Ada" }) })
        #expect(conjunction?.message.contains("Conjunction") == true)
        // (Comparing with a model instance, `$0.department == sales`, does not compile:
        // #Predicate wants Codable, Sendable values.)
        // A nil-coalescing default.
        let coalesce = refusal(#Predicate<Employee> { ($0.department?.name ?? "") == "Sales" })
        #expect(coalesce?.message.contains("NilCoalesce") == true)
    }

    @Test func aBoolPropertyAndRefusedComputedAndSortForms() throws {
        let (container, context) = try inMemoryContainer(Sample.self)
        for (text, flag) in [("a", true), ("b", false), ("c", true)] {
            let sample = Sample(text: text)
            sample.flag = flag
            context.insert(sample)
        }
        try context.save()
        let flagged = try context.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.flag }, sortBy: [SortDescriptor(\.text)]))
        #expect(flagged.map(\.text) == ["a", "c"])
        let request = try FetchDescriptor<Sample>(predicate: #Predicate { $0.flag }).fetchRequest(schema: container.schema)
        #expect(request.predicate == (Strata.Predicate.key("flag") == true))
        let unflagged = try context.fetch(FetchDescriptor<Sample>(predicate: #Predicate { !$0.flag })).map(\.text)
        #expect(unflagged == ["b"])
        // A computed property is not in the store.
        let computed = #expect(throws: StrataError.self) {
            _ = try context.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.computed == "A" }))
        }
        #expect(computed?.code == .untranslatablePredicate)
        #expect(computed?.message.contains("computed") == true || computed?.message.contains("not a persisted property") == true,
                "\(String(describing: computed))")
        // Sorting by a transient property, or prefetching one, names an unknown key path.
        var sortedByScratch = FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.text)])
        sortedByScratch.relationshipKeyPathsForPrefetching = [\Sample.scratch]
        let prefetch = #expect(throws: StrataError.self) { _ = try context.fetch(sortedByScratch) }
        #expect(prefetch?.code == .unknownKeyPath)
    }

    @Test func theTranslationIsStrataPredicate() throws {
        let (container, _) = try inMemoryContainer(Employee.self, Department.self)
        let descriptor = FetchDescriptor<Employee>(predicate: #Predicate { $0.salary >= 100 && $0.department?.name == "Sales" })
        let request = try descriptor.fetchRequest(schema: container.schema)
        #expect(request.predicate == (Strata.Predicate.key("salary") >= 100.0 && Strata.Predicate.key("department.name") == "Sales"))
    }
}
