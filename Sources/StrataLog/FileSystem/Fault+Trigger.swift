extension Fault {
    /// Which of the operations a fault matches make it fire, counted from the moment it
    /// was injected (1 is the first matching operation after `inject`).
    ///
    /// To fail each fsync of a workload in turn, run it once to count them
    /// (`FaultInjectingFileSystem.count(of:)`), then once per `n` with `.nth(n)`.
    package enum Trigger: Sendable, Equatable, CustomStringConvertible {
        /// Every matching operation.
        case always
        /// Only the nth matching operation.
        case nth(Int)
        /// The nth matching operation and every one after it.
        case fromNth(Int)
        /// The first n matching operations, then none (a transient failure).
        case first(Int)

        /// The next matching operation only.
        package static var once: Trigger { .nth(1) }

        func fires(onMatch count: Int) -> Bool {
            switch self {
            case .always: true
            case .nth(let n): count == n
            case .fromNth(let n): count >= n
            case .first(let n): count <= n
            }
        }

        package var description: String {
            switch self {
            case .always: "always"
            case .nth(let n): "on match \(n)"
            case .fromNth(let n): "from match \(n) on"
            case .first(let n): "on the first \(n) matches"
            }
        }
    }
}
