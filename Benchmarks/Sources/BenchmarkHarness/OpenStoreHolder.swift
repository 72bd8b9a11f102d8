import BenchSupport

/// The store a fetch or query benchmark keeps open from setup to teardown.
///
/// `@unchecked Sendable`: package-benchmark calls setup, the iterations and teardown
/// one after another, never concurrently, so the store is never shared between threads.
public final class OpenStoreHolder: @unchecked Sendable {
    public var store: (any EmployeeStore)?

    public init() {}
}
