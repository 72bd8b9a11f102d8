import Foundation

/// The string operators: `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES`.
enum PredicateStringMatching {
    /// Applies a string operator; false when either side is nil.
    ///
    /// An empty prefix, suffix or substring matches every string (Swift's `hasPrefix`
    /// semantics; `NSString` answers false there, which surprises more than it helps).
    ///
    /// - Throws: `StrataError` `.typeMismatch` when a side is not a string;
    ///   `.invalidArgument` for a `MATCHES` pattern that is not a regular expression.
    static func test(
        _ op: PredicateOperator, _ lhs: PredicateOperand, _ rhs: PredicateOperand,
        options: StringComparisonOptions, context: PredicateComparison
    ) throws -> Bool {
        if lhs.isNull || rhs.isNull { return false }
        guard case .value(.string(let subject)) = lhs, case .value(.string(let argument)) = rhs else {
            throw StrataError(
                .typeMismatch,
                "In '\(context)': \(op.rawValue) compares strings only",
                context: ["predicate": context.description]
            )
        }
        switch op {
        case .beginsWith:
            return PredicateValueComparison.fold(subject, options).hasPrefix(PredicateValueComparison.fold(argument, options))
        case .endsWith:
            return PredicateValueComparison.fold(subject, options).hasSuffix(PredicateValueComparison.fold(argument, options))
        case .contains:
            let needle = PredicateValueComparison.fold(argument, options)
            return needle.isEmpty || PredicateValueComparison.fold(subject, options).contains(needle)
        case .like:
            return like(Array(PredicateValueComparison.fold(subject, options)), pattern: Array(PredicateValueComparison.fold(argument, options)))
        case .matches:
            return try matches(subject, pattern: argument, options: options)
        default:
            return false
        }
    }

    /// Wildcard matching: `*` any run, `?` one character, `\` makes the next literal.
    /// Greedy with backtracking to the last `*`: linear in practice, O(n·m) at worst.
    static func like(_ text: [Character], pattern: [Character]) -> Bool {
        var tokens: [LikeToken] = []
        var index = 0
        while index < pattern.count {
            let character = pattern[index]
            if character == "\\", index + 1 < pattern.count {
                tokens.append(.literal(pattern[index + 1]))
                index += 2
                continue
            }
            tokens.append(character == "*" ? .star : character == "?" ? .one : .literal(character))
            index += 1
        }
        var t = 0, p = 0
        var starToken: Int?
        var starText = 0
        while t < text.count {
            if p < tokens.count, tokens[p].matches(text[t]) {
                t += 1
                p += 1
            } else if p < tokens.count, case .star = tokens[p] {
                starToken = p
                starText = t
                p += 1
            } else if let star = starToken {
                p = star + 1
                starText += 1
                t = starText
            } else {
                return false
            }
        }
        while p < tokens.count, case .star = tokens[p] { p += 1 }
        return p == tokens.count
    }

    private enum LikeToken {
        case literal(Character)
        case one
        case star

        func matches(_ character: Character) -> Bool {
            switch self {
            case .literal(let expected): expected == character
            case .one: true
            case .star: false
            }
        }
    }

    /// Whole-string regular expression matching with `NSRegularExpression` (ICU syntax).
    static func matches(_ subject: String, pattern: String, options: StringComparisonOptions) throws -> Bool {
        var regexOptions: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) { regexOptions.insert(.caseInsensitive) }
        let diacritics: StringComparisonOptions = options.intersection(.diacriticInsensitive)
        let expression: NSRegularExpression
        do {
            // \A…\z anchors the whole string; `^…$` would let `$` match before a final newline.
            expression = try PredicateRegexCache.shared.expression(
                "\\A(?:" + PredicateValueComparison.fold(pattern, diacritics) + ")\\z", options: regexOptions)
        } catch {
            throw StrataError(
                .invalidArgument, "'\(pattern)' is not a valid regular expression for MATCHES", context: ["pattern": pattern])
        }
        let text = PredicateValueComparison.fold(subject, diacritics)
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return expression.firstMatch(in: text, options: [], range: range) != nil
    }
}
