import StrataLog

/// The keys a batch insert wrote, as runs of consecutive keys, for its history entry:
/// a million objects inserted from a handler take a few runs, not a million ids.
struct InsertedKeys {
    /// Whether keys are kept at all (history is tracked).
    let tracking: Bool
    private(set) var runs: [(first: RecordKey, count: Int)] = []

    init(tracking: Bool) { self.tracking = tracking }

    mutating func append(_ key: RecordKey) {
        guard tracking else { return }
        if let last = runs.last, key.rawValue == last.first.rawValue &+ UInt64(last.count) {
            runs[runs.count - 1].count += 1
        } else {
            runs.append((key, 1))
        }
    }
}
