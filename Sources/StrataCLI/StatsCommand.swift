import ArgumentParser
import Foundation
import Strata

/// `strata stats STORE [--json]`: what the store holds and how much of it is garbage.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Show keys, bytes in segments and blobs, garbage ratio and format version.")

    @Argument(help: "The store directory.")
    var store: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        var options = LogStoreOptions()
        options.readOnly = true
        options.createIfMissing = false
        let log: LogStore
        do {
            log = try LogStore.open(at: store, options: options, logger: CLILogging.logger)
        } catch {
            Terminal.error("\(error)")
            throw ExitCode(2)
        }
        defer { try? log.close() }
        let usage = log.usage
        let fields: [(String, String)] = [
            ("formatVersion", "\(log.formatVersion)"),
            ("keys", "\(log.count)"),
            ("lastSequence", "\(log.lastSequence)"),
            ("segments", "\(usage.segmentCount)"),
            ("segmentBytes", "\(usage.segmentBytes)"),
            ("liveRecordBytes", "\(usage.liveRecordBytes)"),
            ("blobFiles", "\(usage.blobFileCount)"),
            ("blobBytes", "\(usage.blobBytes)"),
            ("liveBlobBytes", "\(usage.liveBlobBytes)"),
            ("recordGarbage", String(format: "%.3f", usage.recordGarbageRatio)),
            ("blobGarbage", String(format: "%.3f", usage.blobGarbageRatio)),
            ("garbageRatio", String(format: "%.3f", usage.garbageRatio)),
        ]
        if json {
            let object = Dictionary(uniqueKeysWithValues: fields.map { ($0.0, $0.1) })
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
            print(String(decoding: data, as: UTF8.self))
        } else {
            for (name, value) in fields { print("\(name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(value)") }
        }
    }
}
