/// One line of the summary: a workload, both sides' figures and their ratio.
struct SummaryRow {
    enum Figure {
        /// Operations per second (higher is better).
        case throughput(operations: Int, unit: String)
        /// Milliseconds (lower is better).
        case milliseconds
        /// Seconds (lower is better), for runs of seconds.
        case seconds
    }

    var workload: String
    var figure: Figure
    var strata: Sample
    var sqlite: Sample

    func value(_ sample: Sample) -> Double {
        switch figure {
        case let .throughput(operations, _): Double(operations) / sample.seconds
        case .milliseconds: sample.seconds * 1000
        case .seconds: sample.seconds
        }
    }

    var unit: String {
        switch figure {
        case let .throughput(_, unit): "\(unit)/s"
        case .milliseconds: "ms"
        case .seconds: "s"
        }
    }

    /// Strata's figure divided by SQLite's.
    var ratio: Double { value(strata) / value(sqlite) }

    /// How much faster Strata was, whatever the figure (SQLite's time / Strata's time).
    var speedUp: Double { sqlite.seconds / strata.seconds }
}
