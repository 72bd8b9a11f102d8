import BenchSupport
import Foundation

/// One side's result for one workload: the median time over the repetitions, the
/// value the measured part returned (a count or checksum), peak resident memory, and
/// the figures the workload noted (blob bytes read, disk…).
struct Sample: Codable {
    var seconds: Double
    var result: Int
    /// Peak resident set during the measured part, and how much it rose above the
    /// resident set at its start (bytes); nil where the system cannot tell. For a run in
    /// a child process (`isolated`), the peak is the whole child's, from its start.
    var peakResident: Int?
    var residentRise: Int?
    var notes: [String: Int] = [:]
    var isolated = false

    /// Runs `prepare` and the iteration it returns `repetitions` times, keeping the
    /// median time, the largest peak and the last run's notes.
    static func measure(repetitions: Int, _ prepare: () throws -> WorkloadIteration) throws -> Sample {
        var samples: [Sample] = []
        for _ in 0..<max(1, repetitions) {
            samples.append(try once(prepare(), resetPeak: true))
        }
        return combine(samples)
    }

    /// Runs each of `sides` sides `repetitions` times, taking turns (the first side's first
    /// run, the second's, …, then each side's second run): a stretch in which this shared
    /// machine runs slow then falls on every side alike, where running one side's
    /// repetitions before the other's let it fall on one side only and swing the ratio.
    /// `prepare(i)` makes side `i`'s iteration.
    static func measureInTurns(repetitions: Int, sides: Int, _ prepare: (Int) throws -> WorkloadIteration) throws -> [Sample] {
        var samples = [[Sample]](repeating: [], count: sides)
        for _ in 0..<max(1, repetitions) {
            for side in 0..<sides {
                samples[side].append(try once(prepare(side), resetPeak: true))
            }
        }
        return samples.map(combine)
    }

    /// One run of a prepared iteration. With `resetPeak`, the peak is reset first and
    /// is the measured part's; without, it is the process's since it started.
    static func once(_ iteration: WorkloadIteration, resetPeak: Bool) throws -> Sample {
        let canReset = resetPeak ? ResidentMemory.reset() : true
        let before = ResidentMemory.current
        let clock = ContinuousClock()
        let started = clock.now
        let result = try iteration.run()
        let elapsed = clock.now - started
        var peak: Int?
        var rise: Int?
        if canReset, let p = ResidentMemory.peak {
            peak = p
            if let before { rise = max(0, p - before) }
        }
        try iteration.finish()
        return Sample(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18,
                      result: result, peakResident: peak, residentRise: rise, notes: iteration.notes.all)
    }

    /// The median time, the largest peak and rise, the last run's result and notes.
    static func combine(_ samples: [Sample]) -> Sample {
        guard var last = samples.last else { return Sample(seconds: .nan, result: 0) }
        let times = samples.map(\.seconds).sorted()
        last.seconds = times[times.count / 2]
        last.peakResident = samples.compactMap(\.peakResident).max()
        last.residentRise = samples.compactMap(\.residentRise).max()
        return last
    }
}
