import Foundation

/// Where and how a container's store lives, as SwiftData's `ModelConfiguration`.
///
/// ```swift
/// let onDisk = ModelConfiguration(url: URL(fileURLWithPath: "/var/lib/app/Employees.strata"))
/// let scratch = ModelConfiguration(isStoredInMemoryOnly: true)
/// ```
///
/// Strata's own tuning (blob threshold, fault batch size, migration memory budget,
/// logger) is in ``options``.
public struct ModelConfiguration: Sendable {
    /// The store's directory; nil for an in-memory store.
    public var url: URL?
    /// Whether the store lives in memory only (tests, scratch work).
    public var isStoredInMemoryOnly: Bool
    /// Strata's store options. Its `migration` is set by the container from the
    /// migration plan; leave it `.none` here unless you drive migration yourself.
    public var options: StoreOptions

    /// A store in the directory at `url` (created when missing).
    public init(url: URL, options: StoreOptions = StoreOptions()) {
        self.url = url
        self.isStoredInMemoryOnly = false
        self.options = options
    }

    /// A store in memory (`true`), for tests and scratch work.
    public init(isStoredInMemoryOnly: Bool, options: StoreOptions = StoreOptions()) {
        self.url = nil
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.options = options
    }
}
