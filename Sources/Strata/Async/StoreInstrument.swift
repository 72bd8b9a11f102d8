import StrataLog

/// What a store reports of its work, for metrics: each operation's duration and
/// outcome, and each conflict a write retried. `StrataService` installs one that
/// reports through swift-metrics; the object layer itself depends on no metrics API.
///
/// Calls come from the thread that did the work, often a store's own: keep them
/// short and never block.
package protocol StoreInstrument: Sendable {
    /// `operation` finished after `duration`, with `error` when it failed.
    func operationFinished(_ operation: StoreOperation, duration: Duration, error: (any Error)?)
    /// A write met a `.conflict` and runs its closure again.
    func conflictRetried(_ operation: StoreOperation)
    /// A compaction finished: what it reclaimed, its steps and its longest pause.
    func compacted(_ report: CompactionReport)
}

extension StoreInstrument {
    /// Nothing, unless the instrument reports compactions.
    package func compacted(_ report: CompactionReport) {}
}

/// An operation a store reports to its ``StoreInstrument``; the raw values are
/// OpenTelemetry's `db.operation.name`.
package struct StoreOperation: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }
    package var description: String { rawValue }

    /// ``ObjectStore/read(_:)``.
    package static let read = Self(rawValue: "read")
    /// ``ObjectStore/write(_:)``, its save included.
    package static let write = Self(rawValue: "write")
    /// A context's fetch, count or id list.
    package static let fetch = Self(rawValue: "fetch")
    /// A context's save.
    package static let save = Self(rawValue: "save")
    /// ``ObjectStore/compact(force:bytesPerSecond:)``.
    package static let compact = Self(rawValue: "compact")
    /// ``ObjectStore/backup(to:progress:)``.
    package static let backup = Self(rawValue: "backup")
    /// A migration at open.
    package static let migrate = Self(rawValue: "migrate")
}

extension ObjectStore {
    /// The instrument the store reports to, if any (``StoreOptions/instrument``, or
    /// one installed later by a service).
    package var instrument: (any StoreInstrument)? { instrumentSlot.withLock { $0 } }

    /// Installs `instrument` in place of the store's (nil removes it).
    package func setInstrument(_ instrument: (any StoreInstrument)?) {
        instrumentSlot.withLock { $0 = instrument }
    }

    /// Runs `body` and reports it as `operation` (measured only when an instrument is
    /// installed), its error included.
    func measured<T>(_ operation: StoreOperation, _ body: () async throws -> T) async throws -> T {
        let started = instrument == nil ? nil : ContinuousClock.now
        do {
            let value = try await body()
            record(operation, since: started, error: nil)
            return value
        } catch {
            record(operation, since: started, error: error)
            throw error
        }
    }

    /// Reports an operation that started at `started` (nil: no instrument was
    /// installed when it started, so nothing is measured).
    func record(_ operation: StoreOperation, since started: ContinuousClock.Instant?, error: (any Error)?) {
        guard let started, let instrument else { return }
        instrument.operationFinished(operation, duration: ContinuousClock.now - started, error: error)
    }
}
