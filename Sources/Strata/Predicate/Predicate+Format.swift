extension Predicate {
    /// Parses a predicate from its format string, as `NSPredicate(format:)` does.
    ///
    /// `%@` takes the next argument as a value (an array becomes a list for `IN` or
    /// `BETWEEN`, `nil` becomes `NULL`); `%K` takes the next argument, a `String`, as a
    /// key path. Keywords are case-insensitive.
    ///
    /// ```swift
    /// let adults = try Predicate(format: "age >= 18 AND name BEGINSWITH[c] 'jo'")
    /// let byKey = try Predicate(format: "%K == %@", "age", Value.int(25))
    /// let some = try Predicate(format: "ANY employees.salary > %@ OR employees.@count > 3", 1000)
    /// ```
    ///
    /// - Parameters:
    ///   - format: the predicate in the `NSPredicate` format language.
    ///   - arguments: the values of `%@` and the key paths of `%K`, in order.
    /// - Throws: `StrataError` `.predicateSyntax` when the format does not parse: the
    ///   message and the context keys `position` (a character offset), `expected` and
    ///   `found` say where and why. `.invalidArgument` when the arguments do not match
    ///   the `%@`/`%K` in the format. `.limitExceeded` when it nests deeper than
    ///   ``maximumNestingDepth`` (context `limit`: `predicateNestingDepth`, `position`).
    public init(format: String, _ arguments: any PredicateArgument...) throws {
        self = try PredicateParser.parse(format, arguments: arguments)
    }

    /// Parses a predicate from its format string with an array of arguments.
    ///
    /// - Throws: as ``init(format:_:)``.
    public init(format: String, argumentArray arguments: [any PredicateArgument]) throws {
        self = try PredicateParser.parse(format, arguments: arguments)
    }
}
