import ArgumentParser
import Foundation
import Strata
#if Postgres
import StrataPostgres
#endif

/// `strata copy SOURCE DEST`: a store moved between store types — a directory into a
/// PostgreSQL schema (`postgres://…`) or back — streaming its records and blobs, then
/// verified where it arrived.
struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a store into a new directory or PostgreSQL schema (postgres://USER@HOST/DATABASE?schema=NAME), and back.",
        discussion: """
            Records, blobs and metadata are streamed in batches, in one transaction at the destination (a new directory, or a schema that holds no store); the copy is verified at the end. \
            The history is not carried over: the destination's starts at the copy. PostgreSQL locations need a build with the Postgres trait.
            """
    )

    @Argument(help: "The store: a directory, or a postgres:// location.")
    var source: String

    @Argument(help: "Where the copy goes: a new directory, or a postgres:// location whose schema holds no store yet.")
    var destination: String

    func run() throws {
        try reportingFailures {
            if !Self.isPostgres(source), !Self.isPostgres(destination), LogStore.location(destination, liesInStoreAt: source) {
                throw CommandFailure.usage("the copy's destination lies inside the store it copies: copy into a directory outside it")
            }
            let from = try Self.open(source, readOnly: true)
            defer { try? from.close() }
            let to = try Self.open(destination, readOnly: false)
            // A directory this command created goes again if the copy fails, so that a
            // second try is not refused as "exists" (a schema keeps nothing: the copy is
            // one transaction, and a failed one commits none of it).
            var copied = false
            defer {
                try? to.close()
                if !copied, !Self.isPostgres(destination) {
                    try? FileManager.default.removeItem(atPath: destination)
                }
            }
            guard to.lastSequence == 0, try to.keys(in: nil, after: nil, limit: 1).isEmpty else {
                throw CommandFailure.usage("\(ObjectStore.shownLocation(destination)) already holds a store: copy into a new directory or an empty schema")
            }
            let started = ContinuousClock.now
            var records = 0, blobs = 0, blobBytes = 0
            var after: RecordKey?
            // One transaction, handed over a page at a time: a copy holds one page.
            try to.commit { batch, writeBlob in
                let keys = try from.keys(in: nil, after: after, limit: Self.page)
                guard let first = keys.first, let last = keys.last else { return false }
                after = last
                // The highest key there is cannot end a half-open range; it is a history
                // key (tag 0xFFFF), which is not copied anyway.
                let end = last.rawValue == UInt64.max ? last : RecordKey(last.rawValue + 1)
                try from.scan(first..<end, batchSize: Self.page) { page in
                    for record in page where record.key.rawValue >> 48 != Self.historyTag {
                        var refs: [BlobRef] = []
                        for blob in record.blobs {
                            let bytes = try from.readBlob(blob)
                            refs.append(try writeBlob(bytes))
                            blobs += 1
                            blobBytes += bytes.count
                        }
                        batch.put(record.key, value: record.value, blobs: refs, terms: record.terms)
                        records += 1
                    }
                }
                return keys.count == Self.page && last.rawValue != UInt64.max
            }
            try to.setMetadata(from.metadata)
            let report = try to.verify()
            guard report.isSound else {
                throw CommandFailure("the copy at \(ObjectStore.shownLocation(destination)) does not verify: \(report.problems.map(\.description).joined(separator: "; "))")
            }
            let held = try to.count(in: nil)
            guard held == records else {
                throw CommandFailure("the copy at \(ObjectStore.shownLocation(destination)) holds \(held) records, \(records) were copied")
            }
            copied = true
            let elapsed = ContinuousClock.now - started
            print("copied \(records) records and \(blobs) blobs (\(blobBytes) bytes) into \(ObjectStore.shownLocation(destination)) in \(elapsed.formatted(.units(allowed: [.seconds, .milliseconds]))); verified")
        }
    }

    /// Records a transaction's page holds.
    static let page = 1_024
    /// The history's key tag (FORMAT.md §11.6): not copied.
    static let historyTag: UInt64 = 0xFFFF

    static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    static func open(_ location: String, readOnly: Bool) throws -> any RecordStore {
        if isPostgres(location) {
            #if Postgres
            return try PostgresRecordStore(location: location, readOnly: readOnly, logger: CLILogging.logger)
            #else
            throw CommandFailure.usage("this strata was built without PostgreSQL: build it with `swift build --traits Postgres`")
            #endif
        }
        if readOnly { return try StoreAccess.openLog(location) }
        if FileManager.default.fileExists(atPath: location) {
            throw CommandFailure.usage("\(location) exists: copy into a new directory")
        }
        return try LogStore.open(at: location, logger: CLILogging.logger)
    }
}
