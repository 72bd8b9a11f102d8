import StrataData

// The models of the typed quick-start example, written exactly as there: scenario 1's
// Department and Employee with a unique email, an index on salary and a transient flag.

@Model final class Department {
    #Unique<Department>([\.name])
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Employee.department) var employees: [Employee] = []
    init(name: String) { self.name = name }
}

@Model final class Employee {
    #Index<Employee>([\.salary])
    @Attribute(.unique) var email: String
    var name: String
    var salary: Double = 0
    @Attribute(.externalStorage) var photo: Data?
    var department: Department?
    @Transient var isSelected = false
    init(name: String, email: String) { self.name = name; self.email = email }
}
