import Foundation

extension Predicate: CustomStringConvertible {
    /// The predicate in the format language; parsing it gives back an equal predicate
    /// (dates print as `CAST('…', 'NSDate')`; binary, UUID and URL values, which have
    /// no literal, print as a description only).
    public var description: String { format(nested: false) }

    private func format(nested: Bool) -> String {
        switch self {
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case .comparison(let comparison): return comparison.description
        case .not(let operand): return "NOT " + operand.format(nested: true)
        case .and(let operands), .or(let operands):
            if operands.isEmpty { return isAnd ? "TRUEPREDICATE" : "FALSEPREDICATE" }
            let text = operands.map { $0.format(nested: true) }.joined(separator: isAnd ? " AND " : " OR ")
            return nested && operands.count > 1 ? "(\(text))" : text
        }
    }

    private var isAnd: Bool {
        if case .and = self { return true }
        return false
    }
}

extension PredicateComparison: CustomStringConvertible {
    /// The comparison in the format language: `ANY employees.salary > 1000`.
    public var description: String {
        let prefix = quantifier == .direct ? "" : quantifier.rawValue + " "
        return "\(prefix)\(lhs) \(op.rawValue)\(options.modifier) \(rhs)"
    }
}

extension PredicateExpression: CustomStringConvertible {
    /// The expression in the format language: `'text'`, `department.name`, `employees.@count`, `$name`, `{1, 2}`.
    public var description: String {
        switch self {
        case .constant(let value): return Self.literal(value)
        case .keyPath(let path): return Self.escaped(path)
        case .count(let path): return Self.escaped(path) + ".@count"
        case .variable(let name): return "$" + name
        case .list(let elements): return "{" + elements.map(\.description).joined(separator: ", ") + "}"
        // No literal names an object: the description says which one, for people.
        case .object(let id): return "<\(id)>"
        }
    }

    private static func escaped(_ path: String) -> String {
        path.split(separator: ".", omittingEmptySubsequences: false)
            .map { PredicateParser.reservedWords.contains($0.uppercased()) ? "#" + $0 : String($0) }
            .joined(separator: ".")
    }

    private static func quoted(_ text: String) -> String {
        var result = "'"
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case "'": result += "\\'"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default: result.append(character)
            }
        }
        return result + "'"
    }

    private static func literal(_ value: Value) -> String {
        switch value {
        case .null: return "nil"
        case .bool(let flag): return flag ? "TRUE" : "FALSE"
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .decimal(let number): return number.description
        case .string(let text): return quoted(text)
        case .date(let date): return "CAST(\(quoted(date.formatted(.iso8601))), 'NSDate')"
        case .binary(let data): return "<\(data.count) bytes>"
        case .uuid(let uuid): return quoted(uuid.uuidString)
        case .url(let url): return quoted(url.absoluteString)
        case .composite(let data): return "<composite of \(data.count) bytes>"
        }
    }
}
