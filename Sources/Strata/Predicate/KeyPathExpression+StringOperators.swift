extension KeyPathExpression {
    /// `BEGINSWITH`, with `[c]`/`[d]` folding when asked.
    ///
    /// ```swift
    /// .key("name").beginsWith("jo", caseInsensitive: true)   // name BEGINSWITH[c] 'jo'
    /// ```
    public func beginsWith(
        _ prefix: some PredicateArgument, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Predicate {
        compare(.beginsWith, prefix, options: .init(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
    }

    /// `ENDSWITH`, with `[c]`/`[d]` folding when asked.
    public func endsWith(
        _ suffix: some PredicateArgument, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Predicate {
        compare(.endsWith, suffix, options: .init(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
    }

    /// `CONTAINS` (a substring), with `[c]`/`[d]` folding when asked.
    public func contains(
        _ substring: some PredicateArgument, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Predicate {
        compare(.contains, substring, options: .init(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
    }

    /// `LIKE`: `*` matches any run of characters, `?` exactly one.
    ///
    /// ```swift
    /// .key("name").like("j?n*")   // name LIKE 'j?n*'
    /// ```
    public func like(
        _ pattern: some PredicateArgument, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Predicate {
        compare(.like, pattern, options: .init(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
    }

    /// `MATCHES`: the whole string matches an `NSRegularExpression` pattern.
    public func matches(
        _ pattern: some PredicateArgument, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Predicate {
        compare(.matches, pattern, options: .init(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
    }

    /// `IN`: the value is one of a list (an array, a `.variable`, or a to-many key path).
    ///
    /// ```swift
    /// .key("age").in([25, 30])   // age IN {25, 30}
    /// ```
    public func `in`(_ values: some PredicateArgument, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> Predicate {
        compare(.in, values, options: .init(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
    }

    /// `BETWEEN {lower, upper}`, bounds included.
    public func between(_ lower: some PredicateArgument, _ upper: some PredicateArgument) -> Predicate {
        compare(.between, PredicateExpression.list([lower.predicateExpression, upper.predicateExpression]))
    }

    /// `BETWEEN {range.lowerBound, range.upperBound}`: `.key("age").between(18...65)`.
    public func between<Bound: PredicateArgument & Comparable>(_ range: ClosedRange<Bound>) -> Predicate {
        between(range.lowerBound, range.upperBound)
    }

    /// `== nil`.
    public var isNil: Predicate { compare(.equalTo, Value.null) }

    /// `!= nil`.
    public var isNotNil: Predicate { compare(.notEqualTo, Value.null) }
}
