import Foundation

/// What the lifecycle store must hold once the script has run, kept by the writer
/// beside the store rather than read back from it, so the committed data file is an
/// independent account the tests hold the store to.
struct ExpectedContents {
    struct Employee {
        var ref: String
        var name: String
        var salary: Double?
        var photo: [UInt8]?
        var department: String?
    }

    /// Department names in creation order (their refs are derived from the names).
    var departments: [String] = []
    var employees: [Employee] = []

    static func departmentRef(_ name: String) -> String { "dept-" + name.lowercased() }

    mutating func update(_ ref: String, _ change: (inout Employee) -> Void) {
        guard let index = employees.firstIndex(where: { $0.ref == ref }) else { return }
        change(&employees[index])
    }

    mutating func remove(employee ref: String) {
        employees.removeAll { $0.ref == ref }
    }

    /// The department and, as its cascade delete rule does, its employees.
    mutating func remove(department name: String) {
        departments.removeAll { $0 == name }
        employees.removeAll { $0.department == name }
    }

    /// The data file, in the format of `strata import` that the other fixtures'
    /// files use: one object per line, keys in a fixed order.
    func jsonLines() -> String {
        var lines: [String] = []
        for name in departments {
            lines.append("{\"@entity\": \"Department\", \"@ref\": \(Self.quoted(Self.departmentRef(name))), \"name\": \(Self.quoted(name))}")
        }
        for employee in employees {
            var fields = ["\"@entity\": \"Employee\"", "\"@ref\": \(Self.quoted(employee.ref))", "\"name\": \(Self.quoted(employee.name))"]
            if let salary = employee.salary { fields.append("\"salary\": \(Self.number(salary))") }
            if let department = employee.department {
                fields.append("\"department\": {\"@ref\": \(Self.quoted(Self.departmentRef(department)))}")
            }
            if let photo = employee.photo {
                fields.append("\"photo\": {\"@base64\": \"\(Data(photo).base64EncodedString())\"}")
            }
            lines.append("{" + fields.joined(separator: ", ") + "}")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Whole numbers without a fraction, others in Swift's shortest exact form.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
