/// Builds the `StrataError`s of the format parser, so that every one names the
/// position and what was expected in the same words.
enum PredicateSyntaxError {
    /// A `.predicateSyntax` error: "Expected X at position N, found Y."
    ///
    /// Context keys: `position` (character offset), `expected`, `found`.
    static func make(at position: Int, expected: String, found: String) -> StrataError {
        StrataError(
            .predicateSyntax,
            "Predicate syntax error at position \(position): expected \(expected), found \(found)",
            context: ["position": String(position), "expected": expected, "found": found]
        )
    }
}
