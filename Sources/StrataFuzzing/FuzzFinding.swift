/// What a fuzz target's oracle reports when an input breaks a promise without
/// trapping: a round trip that does not hold, acknowledged data that is gone. The
/// fuzz executables trap on it, so that libFuzzer keeps the input; the corpus replay
/// test reports it as a failure.
public struct FuzzFinding: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for the crash log or the test report.
    public var description: String

    /// A finding described by `description`.
    public init(_ description: String) { self.description = description }
}
