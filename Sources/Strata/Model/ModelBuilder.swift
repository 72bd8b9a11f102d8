/// The result builder behind `ObjectModel(version:) { … }`: collects ``Entity``
/// declarations, with `if`, `for` and `switch` allowed, so a model can be assembled
/// from parts.
///
/// ```swift
/// let model = try ObjectModel(version: "2") {
///     Entity("Task") { Attribute("title", .string) }
///     if includeArchive {
///         Entity("ArchivedTask", parent: "Task")
///     }
/// }
/// ```
@resultBuilder
public enum ModelBuilder {
    /// One entity declaration.
    public static func buildExpression(_ entity: Entity) -> [Entity] { [entity] }
    /// Entities assembled elsewhere (a shared list, a loop's result).
    public static func buildExpression(_ entities: [Entity]) -> [Entity] { entities }
    /// An entity description built in code.
    public static func buildExpression(_ entity: EntityDescription) -> [Entity] { [Entity(entity)] }
    /// Joins the statements of a block.
    public static func buildBlock(_ parts: [Entity]...) -> [Entity] { parts.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ part: [Entity]?) -> [Entity] { part ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first part: [Entity]) -> [Entity] { part }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [Entity]) -> [Entity] { part }
    /// A `for` loop.
    public static func buildArray(_ parts: [[Entity]]) -> [Entity] { parts.flatMap { $0 } }
}
