import Synchronization

/// One prepared iteration of a workload: `run` is the part to time; `finish` closes and
/// cleans up afterwards, outside the measurement. Both runners use it the same way:
///
///     let iteration = try Workloads.insertOneTransaction(engine, employees)
///     start clock; try iteration.run(); stop clock
///     try iteration.finish()
///
/// `notes` holds figures a workload observed besides its time (blob bytes read, extra
/// disk during a migration…), for BenchSummary to print.
public struct WorkloadIteration {
    public let run: () throws -> Int
    public let finish: () throws -> Void
    public let notes: Notes

    public init(run: @escaping () throws -> Int, finish: @escaping () throws -> Void, notes: Notes = Notes()) {
        self.run = run
        self.finish = finish
        self.notes = notes
    }
}

/// Named figures a workload observed while it ran (bytes, counts).
public final class Notes: Sendable {
    private let values = Mutex<[String: Int]>([:])

    public init() {}

    public subscript(name: String) -> Int? {
        get { values.withLock { $0[name] } }
        set { values.withLock { $0[name] = newValue } }
    }

    public var all: [String: Int] { values.withLock { $0 } }
}
