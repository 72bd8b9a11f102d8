import Hummingbird

extension Request {
    /// TechEmpower's `queries` parameter: clamped to 1…500, and 1 when it is missing or
    /// not a number (the benchmark's rules, not a 400).
    var queryCount: Int {
        guard let text = uri.queryParameters["queries"], let count = Int(text) else { return 1 }
        return min(max(count, 1), 500)
    }
}
