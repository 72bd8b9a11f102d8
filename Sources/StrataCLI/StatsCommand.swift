import ArgumentParser
import Foundation
import Strata
import StrataImport

/// `strata stats STORE [--json]`: what the store holds and how much of it is garbage:
/// format version, bytes in segments and blobs, garbage ratios, and for an object
/// store its model's version and hash and the objects of each entity.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show entities and object counts, bytes in segments and blobs, garbage ratio, model hash and format version.",
        discussion: """
            segmentBytes and blobBytes are the files' sizes on disk. recordBytes and liveRecordBytes count the records (all of them, and the current versions) as encoded before compression, \
            so with compressed blocks they can exceed segmentBytes; recordGarbage is the share of recordBytes that is superseded.
            """
    )

    @Argument(help: "The store directory.")
    var store: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        try reportingFailures {
            let log = try StoreAccess.openLog(store)
            var fields: [(String, JSONValue)]
            let model: ObjectModel?
            do {
                defer { try? log.close() }
                let usage = log.usage
                fields = [
                    ("formatVersion", .integer(Int64(log.formatVersion))),
                    ("keys", .integer(Int64(log.count))),
                    ("lastSequence", .integer(Int64(clamping: log.lastSequence))),
                    ("segments", .integer(Int64(usage.segmentCount))),
                    ("segmentBytes", .integer(usage.segmentBytes)),
                    ("recordBytes", .integer(usage.recordBytes)),
                    ("liveRecordBytes", .integer(usage.liveRecordBytes)),
                    ("blobFiles", .integer(Int64(usage.blobFileCount))),
                    ("blobBytes", .integer(usage.blobBytes)),
                    ("liveBlobBytes", .integer(usage.liveBlobBytes)),
                    ("recordGarbage", .number(Self.rounded(usage.recordGarbageRatio))),
                    ("blobGarbage", .number(Self.rounded(usage.blobGarbageRatio))),
                    ("garbageRatio", .number(Self.rounded(usage.garbageRatio))),
                ]
                model = try StoreAccess.storedModel(of: log)
            }
            var entities: [(String, Int)] = []
            if let model {
                var options = StoreOptions()
                // The tool moves transformable bytes as they are; it never decodes them.
                options.requiresValueTransformers = false
                options.log.readOnly = true
                options.log.createIfMissing = false
                options.logger = CLILogging.logger
                let objectStore = try ObjectStore(at: store, model: model, options: options)
                defer { try? objectStore.close() }
                let context = objectStore.newContext()
                for entity in model.entities where !entity.isAbstract {
                    var request = FetchRequest(entityName: entity.name)
                    request.includesSubentities = false
                    entities.append((entity.name, try context.count(for: request)))
                }
                fields += [
                    ("modelVersion", .string(model.versionIdentifier)),
                    ("modelHash", .string(model.versionHash)),
                    // Counts come from the manifest's counters: held at the bound, not trapped on.
                    ("objects", .integer(Int64(clamping: entities.reduce(0) { $0.addingReportingOverflow($1.1).overflow ? Int.max : $0 + $1.1 }))),
                ]
            }
            if json {
                var object = Dictionary(uniqueKeysWithValues: fields)
                if model != nil {
                    object["entities"] = .object(Dictionary(uniqueKeysWithValues: entities.map { ($0.0, JSONValue.integer(Int64($0.1))) }))
                }
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(JSONValue.object(object)), as: UTF8.self))
            } else {
                for (name, value) in fields { print(Self.row(name, Self.text(value))) }
                if model == nil {
                    print(Self.row("model", "none (engine records only)"))
                } else {
                    print("entities:")
                    for (name, count) in entities { print("  " + Self.row(name, "\(count)")) }
                }
            }
        }
    }

    private static func rounded(_ ratio: Double) -> Double { (ratio * 1000).rounded() / 1000 }

    private static func row(_ name: String, _ value: String) -> String {
        name.padding(toLength: max(16, name.count), withPad: " ", startingAt: 0) + " " + value
    }

    private static func text(_ value: JSONValue) -> String {
        switch value {
        case .integer(let n): "\(n)"
        case .number(let d): String(format: "%.3f", d)
        case .string(let s): s
        default: "\(value)"
        }
    }
}
