import StrataLog

/// Turns an error thrown by user code during a migration — an entity migration
/// policy's hook, a stage's `willMigrate` or `didMigrate` — into one
/// `migrationHookFailed` error that says which hook threw, for which mapping, stage or
/// object, and keeps what the hook threw: its message, its code as `underlyingCode`, and
/// its context (entity, property, object…) under the same keys.
enum MigrationHookFailure {
    /// Runs a policy hook of `mapping`; errors of mappings without a policy of their
    /// own come from Strata's default creation, not user code, and pass unchanged.
    static func wrap<T>(hook: String, mapping: EntityMapping, object: ManagedObject? = nil, _ body: () throws -> T) throws -> T {
        guard mapping.hasCustomPolicy else { return try body() }
        do {
            return try body()
        } catch {
            var context = ["hook": hook, "entityMapping": mapping.name]
            context["entity"] = mapping.sourceEntityName ?? mapping.destinationEntityName
            if let object {
                context["entity"] = object.objectID.entityName
                context["object"] = object.objectID.description
            }
            let place = object.map { " for \($0.objectID)" } ?? ""
            throw wrapped(error, "the \(hook) hook of entity mapping '\(mapping.name)' threw\(place)", context: context)
        }
    }

    /// Runs a stage hook (`willMigrate`, `didMigrate`) of the stage `stage` (a label).
    static func wrap<T>(hook: String, stage: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw wrapped(error, "the \(hook) hook of stage \(stage) threw", context: ["hook": hook, "stage": stage])
        }
    }

    private static func wrapped(_ error: any Error, _ what: String, context: [String: String]) -> StrataError {
        // A hook run inside another (a stage's didMigrate saving what a policy made)
        // already says which one threw.
        if let strata = error as? StrataError, strata.code == .migrationHookFailed { return strata }
        var context = context
        var detail = "\(error)"
        if let strata = error as? StrataError {
            context["underlyingCode"] = strata.code.rawValue
            context.merge(strata.context) { mine, _ in mine }
            detail = strata.message
        }
        return StrataError(.migrationHookFailed, "\(what): \(detail); the store is as it was", context: context)
    }
}
