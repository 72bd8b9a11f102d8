import Metrics

/// Times each repository operation as OpenTelemetry's `db.client.operation.duration`
/// (dimensions `db.system.name`, `db.operation.name`, and `error.type` on failure), so
/// that `/metrics` compares the two engines operation by operation.
struct DatabaseMetrics: Sendable {
    static let label = "db.client.operation.duration"

    let systemName: String

    init(systemName: String) {
        self.systemName = systemName
    }

    /// Runs `body` and records how long it took under `operation`.
    func measure<T: Sendable>(_ operation: String, _ body: () async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        do {
            let value = try await body()
            timer(operation, errorType: nil).record(duration: start.duration(to: .now))
            return value
        } catch {
            timer(operation, errorType: Self.errorType(of: error)).record(duration: start.duration(to: .now))
            throw error
        }
    }

    /// The factory caches a handler per label and dimensions, so making the timer per
    /// call costs one locked lookup, not a new series.
    private func timer(_ operation: String, errorType: String?) -> Timer {
        var dimensions = [("db.system.name", systemName), ("db.operation.name", operation)]
        if let errorType { dimensions.append(("error.type", errorType)) }
        return Timer(label: Self.label, dimensions: dimensions, preferredDisplayUnit: .seconds)
    }

    /// A low-cardinality name for an error: the store's code where there is one.
    static func errorType(of error: any Error) -> String {
        APIError(error).code
    }
}
