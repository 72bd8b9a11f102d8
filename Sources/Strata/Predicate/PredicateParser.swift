import Foundation

/// A recursive-descent parser for the predicate format language.
///
/// Grammar (keywords are case-insensitive; `#name` escapes a reserved word as a key):
///
/// ```
/// predicate   := or
/// or          := and { ("OR" | "||") and }
/// and         := unary { ("AND" | "&&") unary }
/// unary       := ("NOT" | "!") unary | primary
/// primary     := "(" predicate ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
/// comparison  := [ "ANY" | "SOME" | "ALL" | "NONE" ] expression operator [ "[" c|d|cd "]" ] expression
/// operator    := "==" | "=" | "!=" | "<>" | "<" | "<=" | "=<" | ">" | ">=" | "=>"
///              | "BEGINSWITH" | "ENDSWITH" | "CONTAINS" | "LIKE" | "MATCHES" | "IN" | "BETWEEN"
/// expression  := literal | keyPath | "$" name | "%@" | "%K" { "." component } | "{" [ expression { "," expression } ] "}"
/// keyPath     := name { "." name } [ "." "@count" ]
/// literal     := ["-"] number | string | TRUE | FALSE | YES | NO | NIL | NULL | CAST "(" (string | number) "," "'NSDate'" ")"
/// ```
struct PredicateParser {
    private let tokens: [PredicateToken]
    private var index = 0
    private let arguments: [any PredicateArgument]
    private var argumentIndex = 0
    /// Open parentheses, `NOT`s and `{` lists around the current token: each is a level
    /// of recursion here and in validation and evaluation (``Predicate/maximumNestingDepth``).
    private var depth = 0

    /// Words that end a key path or start a construct; they are keys only when escaped with `#`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH",
        "CONTAINS", "LIKE", "MATCHES", "TRUEPREDICATE", "FALSEPREDICATE", "TRUE", "FALSE", "YES", "NO",
        "NIL", "NULL", "CAST",
    ]

    private init(tokens: [PredicateToken], arguments: [any PredicateArgument]) {
        self.tokens = tokens
        self.arguments = arguments
    }

    /// Parses a whole format string.
    ///
    /// - Throws: `StrataError` `.predicateSyntax` naming the position and what was
    ///   expected; `.invalidArgument` when the `%@`/`%K` arguments do not fit the format.
    static func parse(_ format: String, arguments: [any PredicateArgument]) throws -> Predicate {
        var parser = PredicateParser(tokens: try PredicateTokenCache.shared.tokens(of: format), arguments: arguments)
        let predicate = try parser.parseOr()
        guard parser.current.kind == .end else {
            throw parser.syntaxError(expected: "AND, OR or the end of the format")
        }
        guard parser.argumentIndex == arguments.count else {
            throw StrataError(
                .invalidArgument,
                "The predicate format uses \(parser.argumentIndex) argument(s) but \(arguments.count) were passed",
                context: ["format": format]
            )
        }
        return predicate
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[min(index, tokens.count - 1)] }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func keyword(_ token: PredicateToken) -> String? {
        if case .identifier(let name) = token.kind {
            let upper = name.uppercased()
            return Self.reservedWords.contains(upper) ? upper : nil
        }
        return nil
    }

    private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    private mutating func accept(keyword word: String) -> Bool {
        guard keyword(current) == word else { return false }
        advance()
        return true
    }

    private mutating func accept(symbol: String) -> Bool {
        guard isSymbol(symbol) else { return false }
        advance()
        return true
    }

    private mutating func expect(symbol: String, _ what: String) throws {
        guard accept(symbol: symbol) else { throw syntaxError(expected: what) }
    }

    /// Enters one level of nesting, refusing to go past ``Predicate/maximumNestingDepth``
    /// before the recursion that would overflow the stack.
    private mutating func descend(at position: Int) throws {
        depth += 1
        guard depth <= Predicate.maximumNestingDepth else { throw Predicate.nestingLimitError(position: position) }
    }

    private func syntaxError(expected: String) -> StrataError {
        PredicateSyntaxError.make(at: current.position, expected: expected, found: current.description)
    }

    // MARK: Predicates

    private mutating func parseOr() throws -> Predicate {
        var operands = [try parseAnd()]
        while accept(keyword: "OR") || accept(symbol: "||") {
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    private mutating func parseAnd() throws -> Predicate {
        var operands = [try parseUnary()]
        while accept(keyword: "AND") || accept(symbol: "&&") {
            operands.append(try parseUnary())
        }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    private mutating func parseUnary() throws -> Predicate {
        let position = current.position
        if accept(keyword: "NOT") || accept(symbol: "!") {
            try descend(at: position)
            defer { depth -= 1 }
            return .not(try parseUnary())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws -> Predicate {
        let position = current.position
        if accept(symbol: "(") {
            try descend(at: position)
            defer { depth -= 1 }
            let inner = try parseOr()
            try expect(symbol: ")", "')'")
            return inner
        }
        if accept(keyword: "TRUEPREDICATE") { return .truePredicate }
        if accept(keyword: "FALSEPREDICATE") { return .falsePredicate }
        return .comparison(try parseComparison())
    }

    private mutating func parseComparison() throws -> PredicateComparison {
        var quantifier = PredicateQuantifier.direct
        switch keyword(current) {
        case "ANY", "SOME": quantifier = .any
        case "ALL": quantifier = .all
        case "NONE": quantifier = .none
        default: break
        }
        if quantifier != .direct { advance() }

        let lhs = try parseExpression()
        let op = try parseOperator()
        let options = try parseOptions()
        let rhsStart = current
        let rhs = try parseExpression()
        if op == .between, case .list(let bounds) = rhs, bounds.count != 2 {
            throw PredicateSyntaxError.make(
                at: rhsStart.position, expected: "two bounds {lower, upper} after BETWEEN", found: "\(bounds.count) value(s)")
        }
        return PredicateComparison(lhs, op, rhs, quantifier: quantifier, options: options)
    }

    private mutating func parseOperator() throws -> PredicateOperator {
        let op: PredicateOperator? = switch current.kind {
        case .symbol("=="): .equalTo
        case .symbol("!="): .notEqualTo
        case .symbol("<"): .lessThan
        case .symbol("<="): .lessThanOrEqualTo
        case .symbol(">"): .greaterThan
        case .symbol(">="): .greaterThanOrEqualTo
        case .identifier:
            switch keyword(current) {
            case "BEGINSWITH": .beginsWith
            case "ENDSWITH": .endsWith
            case "CONTAINS": .contains
            case "LIKE": .like
            case "MATCHES": .matches
            case "IN": .in
            case "BETWEEN": .between
            default: nil
            }
        default: nil
        }
        guard let op else { throw syntaxError(expected: "a comparison operator") }
        advance()
        return op
    }

    private mutating func parseOptions() throws -> StringComparisonOptions {
        guard accept(symbol: "[") else { return [] }
        guard case .identifier(let letters) = current.kind else {
            throw syntaxError(expected: "a modifier c, d or cd")
        }
        var options: StringComparisonOptions = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            default: throw syntaxError(expected: "a modifier c, d or cd")
            }
        }
        advance()
        try expect(symbol: "]", "']' closing the modifier")
        return options
    }

    // MARK: Expressions

    private mutating func parseExpression() throws -> PredicateExpression {
        let token = current
        switch token.kind {
        case .integer(let value):
            advance()
            return .constant(.int(value))
        case .double(let value):
            advance()
            return .constant(.double(value))
        case .string(let value):
            advance()
            return .constant(.string(value))
        case .symbol("-"):
            advance()
            switch current.kind {
            case .integer(let value):
                advance()
                return .constant(.int(-value))
            case .double(let value):
                advance()
                return .constant(.double(-value))
            default:
                throw syntaxError(expected: "a number after '-'")
            }
        case .symbol("{"):
            advance()
            try descend(at: token.position)
            defer { depth -= 1 }
            var elements: [PredicateExpression] = []
            if accept(symbol: "}") { return .list(elements) }
            repeat {
                elements.append(try parseExpression())
            } while accept(symbol: ",")
            try expect(symbol: "}", "',' or '}' in the list")
            return .list(elements)
        case .variable(let name):
            advance()
            return .variable(name)
        case .argument(let isKey):
            advance()
            let argument = try nextArgument(at: token.position, isKey: isKey)
            guard isKey else { return argument.predicateExpression }
            guard case .constant(.string(let key)) = argument.predicateExpression, !key.isEmpty else {
                throw StrataError(
                    .invalidArgument,
                    "The argument for %K at position \(token.position) must be a non-empty key path string",
                    context: ["position": String(token.position)]
                )
            }
            return try parseKeyPathContinuation(key)
        case .escapedIdentifier(let name):
            advance()
            return try parseKeyPathContinuation(name)
        case .identifier(let name):
            switch keyword(token) {
            case nil:
                advance()
                return try parseKeyPathContinuation(name)
            case "TRUE", "YES":
                advance()
                return .constant(.bool(true))
            case "FALSE", "NO":
                advance()
                return .constant(.bool(false))
            case "NIL", "NULL":
                advance()
                return .constant(.null)
            case "CAST":
                advance()
                return try parseCast()
            default:
                throw syntaxError(expected: "a key path or a value")
            }
        default:
            throw syntaxError(expected: "a key path or a value")
        }
    }

    private mutating func parseKeyPathContinuation(_ first: String) throws -> PredicateExpression {
        var path = first
        while accept(symbol: ".") {
            switch current.kind {
            case .identifier(let name), .escapedIdentifier(let name):
                advance()
                path += "." + name
            case .collectionOperator(let name) where name.lowercased() == "count":
                advance()
                return .count(path)
            default:
                throw syntaxError(expected: "a key name or '@count' after '.'")
            }
        }
        return .keyPath(path)
    }

    /// `CAST('2026-01-01T00:00:00Z', 'NSDate')` or `CAST(seconds, 'NSDate')`, where
    /// seconds count from 2001-01-01 as `NSDate`'s reference date does.
    private mutating func parseCast() throws -> PredicateExpression {
        try expect(symbol: "(", "'(' after CAST")
        let valueToken = current
        let date: Date
        switch valueToken.kind {
        case .string(let text):
            guard let parsed = try? Date(text, strategy: .iso8601) else {
                throw PredicateSyntaxError.make(
                    at: valueToken.position, expected: "an ISO 8601 date such as '2026-01-01T00:00:00Z'", found: valueToken.description)
            }
            date = parsed
        case .integer(let seconds):
            date = Date(timeIntervalSinceReferenceDate: TimeInterval(seconds))
        case .double(let seconds):
            date = Date(timeIntervalSinceReferenceDate: seconds)
        default:
            throw syntaxError(expected: "a date string or a number of seconds in CAST")
        }
        advance()
        try expect(symbol: ",", "',' in CAST")
        guard case .string(let type) = current.kind, type == "NSDate" || type.lowercased() == "date" else {
            throw syntaxError(expected: "'NSDate' as the type of CAST")
        }
        advance()
        try expect(symbol: ")", "')' closing CAST")
        return .constant(.date(date))
    }

    private mutating func nextArgument(at position: Int, isKey: Bool) throws -> any PredicateArgument {
        guard argumentIndex < arguments.count else {
            throw StrataError(
                .invalidArgument,
                "The predicate format needs an argument for \(isKey ? "%K" : "%@") at position \(position) but only \(arguments.count) were passed",
                context: ["position": String(position)]
            )
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }
}
