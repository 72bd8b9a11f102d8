/// The zero-size storage `@Model` gives each persisted property, so that the class's
/// own initializer can assign it through its init accessor. Not used directly.
public struct _PersistedStorage: Sendable {
    public init() {}
}
