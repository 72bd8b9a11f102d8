import Logging
import StrataLog

/// A logger whose messages a test can read back: what the library logs (a warning a
/// migration owes its caller) is part of its behaviour.
///
/// ```swift
/// let log = CapturedLog()
/// options.logger = log.logger
/// // … open the store …
/// #expect(log.messages(at: .warning).contains { $0.message == "…" })
/// ```
public final class CapturedLog: Sendable {
    /// One logged message.
    public struct Entry: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]
    }

    private let entries = Locked<[Entry]>([])

    public init() {}

    /// A logger (level trace) that records into this log.
    public var logger: Logger {
        var logger = Logger(label: "strata.test.captured") { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Everything logged so far, in order.
    public var all: [Entry] { entries.withLock { $0 } }

    /// The messages logged at exactly `level`.
    public func messages(at level: Logger.Level) -> [Entry] { all.filter { $0.level == level } }

    fileprivate func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?,
                 source: String, file: String, function: String, line: UInt) {
            let merged = self.metadata.merging(metadata ?? [:]) { $1 }
            log.append(Entry(level: level, message: "\(message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}
