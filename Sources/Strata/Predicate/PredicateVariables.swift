/// The error for a `$variable` without a binding.
enum PredicateVariables {
    static func unboundError(_ name: String) -> StrataError {
        StrataError(
            .invalidArgument,
            "The predicate variable '$\(name)' has no value: bind it with withSubstitutionVariables",
            context: ["variable": name]
        )
    }
}
