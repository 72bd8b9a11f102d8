import StrataLog

/// Builds the `invalidModel` errors of model validation, so that every one names the
/// entity and, where there is one, the property, in its message and in its context.
enum ModelValidationError {
    /// An error about a whole entity.
    static func entity(_ entity: String, _ problem: String) -> StrataError {
        StrataError(
            .invalidModel,
            "Entity '\(ModelName.shown(entity))': \(problem)",
            context: ["entity": ModelName.shown(entity)]
        )
    }

    /// An error about one property of an entity.
    static func property(_ entity: String, _ property: String, _ problem: String) -> StrataError {
        StrataError(
            .invalidModel,
            "Property '\(ModelName.shown(entity)).\(ModelName.shown(property))': \(problem)",
            context: ["entity": ModelName.shown(entity), "property": ModelName.shown(property)]
        )
    }

    /// An error about the model file as a whole, before any entity is known.
    static func file(_ problem: String, path: String? = nil) -> StrataError {
        StrataError(.invalidModel, problem, path: path)
    }
}
