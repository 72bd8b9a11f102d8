import Logging
import Synchronization

/// A log handler that keeps every message at or above its level, so a test can assert
/// that something was logged (a warning) and what it said.
public struct RecordingLogHandler: LogHandler {
    /// One logged message.
    public struct Entry: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]
    }

    /// The messages logged so far, shared by every copy of the handler.
    public final class Box: Sendable {
        let entries = Mutex<[Entry]>([])
        public init() {}
        public var all: [Entry] { entries.withLock { $0 } }
    }

    public let box: Box
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]

    public init(box: Box, level: Logger.Level = .info) {
        self.box = box
        self.logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
        let merged = self.metadata.merging(metadata ?? [:]) { $1 }.mapValues { "\($0)" }
        box.entries.withLock { $0.append(Entry(level: level, message: "\(message)", metadata: merged)) }
    }

    /// A logger writing into a new box, and the box.
    public static func logger(level: Logger.Level = .info) -> (Logger, Box) {
        let box = Box()
        return (Logger(label: "strata.test.recording") { _ in RecordingLogHandler(box: box, level: level) }, box)
    }
}
