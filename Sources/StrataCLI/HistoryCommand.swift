import ArgumentParser
import Foundation
import Strata
import StrataImport

/// `strata history STORE [--after SEQUENCE] [--follow [--interval MS]]`: the store's
/// history, one JSON line per transaction; with `--follow`, new transactions as they
/// are committed, looked for every `--interval` milliseconds.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Print the store's history, one JSON line per transaction (the store must track history).",
        discussion: """
            Each line: {"token": SEQUENCE, "store": ID, "time": ISO-8601, "author": …, "context": …, "changes": [{"type": "insert"|"update"|"delete", "object": URI, "updated": [names], "tombstone": {name: value}}]}.
            The store is opened read-only, so this runs beside the process that writes it; --follow polls for its commits every --interval milliseconds.
            """)

    @Argument(help: "The store directory.")
    var store: String

    @Option(help: "Print the transactions after this token (a line's \"token\"); default: from the oldest kept.")
    var after: UInt64?

    @Flag(help: "Keep printing transactions as they are committed, until interrupted.")
    var follow = false

    @Option(help: "With --follow, how often to look for new commits, in milliseconds.")
    var interval = 50

    func run() async throws {
        try await reportingFailures {
            guard interval > 0 else { throw CommandFailure.usage("--interval must be at least 1 millisecond") }
            let objects = try StoreAccess.openObjectStore(store, readOnly: true) { $0.refreshInterval = .milliseconds(interval) }
            defer { try? objects.close() }
            let output = StandardOutput()
            let values = JSONLines()
            var token = after.map { HistoryToken(sequence: $0, storeIdentifier: objects.identifier) }
            if follow {
                // Whatever is kept first, then the feed (which starts after a token).
                let start = try token ?? objects.historyHorizon() ?? objects.currentHistoryToken
                let feed = objects.changes(after: start)
                for try await transaction in feed {
                    try output.writeLine(try Self.line(transaction, values: values))
                    try output.flush()
                }
                return
            }
            while true {
                let page = try objects.fetchHistory(after: token, limit: 1_024)
                guard let last = page.last else { break }
                for transaction in page { try output.writeLine(try Self.line(transaction, values: values)) }
                token = last.token
            }
            try output.flush()
        }
    }

    /// One transaction as a JSON line.
    static func line(_ transaction: HistoryTransaction, values: JSONLines) throws -> Data {
        var object: [String: JSONValue] = [
            "token": .integer(Int64(clamping: transaction.token.sequence)),
            "store": .string(transaction.token.storeIdentifier),
            "time": .string(ISO8601DateFormatter.withFractions.string(from: transaction.timestamp)),
            "changes": .array(transaction.changes.map { change in
                var entry: [String: JSONValue] = [
                    "type": .string(change.changeType.rawValue),
                    "object": .string(change.changedObjectID.uriRepresentation),
                ]
                if change.changeType == .update { entry["updated"] = .array(change.updatedAttributes.map(JSONValue.string)) }
                if let tombstone = change.tombstone { entry["tombstone"] = .object(tombstone.mapValues(values.json)) }
                return .object(entry)
            }),
        ]
        if let author = transaction.author { object["author"] = .string(author) }
        if let name = transaction.contextName { object["context"] = .string(name) }
        var writer = JSONLineWriter()
        try writer.append(.object(object))
        return Data(writer.bytes)
    }
}

private extension ISO8601DateFormatter {
    nonisolated(unsafe) static let withFractions: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}
