import BenchSupport

/// One side's result for one workload: the median time over the repetitions, the
/// value the measured part returned (a count or checksum), and peak resident memory.
struct Sample {
    var seconds: Double
    var result: Int
    /// Peak resident set during the measured part, and how much it rose above the
    /// resident set at its start (bytes); nil where the system cannot tell.
    var peakResident: Int?
    var residentRise: Int?

    /// Runs `prepare` and the iteration it returns `repetitions` times, keeping the
    /// median time and the largest peak.
    static func measure(repetitions: Int, _ prepare: () throws -> WorkloadIteration) throws -> Sample {
        var times: [Double] = []
        var result = 0
        var peak: Int?
        var rise: Int?
        for _ in 0..<max(1, repetitions) {
            let iteration = try prepare()
            let canReset = ResidentMemory.reset()
            let before = ResidentMemory.current
            let clock = ContinuousClock()
            let started = clock.now
            result = try iteration.run()
            let elapsed = clock.now - started
            if canReset, let p = ResidentMemory.peak {
                peak = max(peak ?? 0, p)
                if let before { rise = max(rise ?? 0, p - before) }
            }
            try iteration.finish()
            times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }
        times.sort()
        return Sample(seconds: times[times.count / 2], result: result, peakResident: peak, residentRise: rise)
    }
}
