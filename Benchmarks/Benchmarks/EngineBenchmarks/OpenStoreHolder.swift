import BenchSupport

/// The store a fetch benchmark keeps open from setup to teardown.
///
/// `@unchecked Sendable`: package-benchmark calls setup, the iterations and teardown
/// one after another, never concurrently, so the store is never shared between threads.
final class OpenStoreHolder: @unchecked Sendable {
    var store: (any EmployeeStore)?
}
