/// Whether a repository's store can serve writes, for `GET /ready`.
public enum Readiness: Sendable, Equatable {
    case ready
    /// Not ready, and why (read-only after an I/O error, closing, closed).
    case unavailable(reason: String)

    public var isReady: Bool { self == .ready }
}
