/// One prepared iteration of a workload: `run` is the part to time; `finish` closes and
/// cleans up afterwards, outside the measurement. Both runners use it the same way:
///
///     let iteration = try Workloads.insertOneTransaction(engine, employees)
///     start clock; try iteration.run(); stop clock
///     try iteration.finish()
public struct WorkloadIteration {
    public let run: () throws -> Int
    public let finish: () throws -> Void

    public init(run: @escaping () throws -> Int, finish: @escaping () throws -> Void) {
        self.run = run
        self.finish = finish
    }
}
