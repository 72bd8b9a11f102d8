import Foundation
import StrataData

/// A container over an in-memory store for `types`, and a context on it.
func inMemoryContainer(_ types: any PersistentModel.Type...) throws -> (ModelContainer, ModelContext) {
    let container = try ModelContainer(for: try Schema(types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
    return (container, ModelContext(container))
}

/// Sales and Research with five employees: salaries 50…250, Ada, Grace and Linus in
/// Sales, Barbara and Edsger in Research.
@discardableResult
func insertStaff(_ context: ModelContext) throws -> (sales: Department, research: Department) {
    let sales = Department(name: "Sales")
    let research = Department(name: "Research")
    let people: [(String, Double, Department)] = [
        ("Ada", 50, sales), ("Barbara", 100, research), ("Edsger", 150, research), ("Grace", 200, sales), ("Linus", 250, sales),
    ]
    for (name, salary, department) in people {
        let employee = Employee(name: name, email: "\(name.lowercased())@example.com")
        employee.salary = salary
        employee.department = department
        context.insert(employee)
    }
    try context.save()
    return (sales, research)
}
