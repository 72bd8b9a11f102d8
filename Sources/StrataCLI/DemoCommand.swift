import ArgumentParser
import Foundation
import Strata

/// `strata demo`: plays the photo-list scenario on the storage engine, as a user
/// would watch it: employees with photos in the blob area, a name list that reads no
/// photo bytes, a raise for half the staff, compaction, reopen and verify.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Write, list, update, compact, reopen and verify a store of employees with photos.")

    @Option(help: "How many employees to write.")
    var employees = 5_000

    @Option(name: .customLong("photo-kib"), help: "Size of each employee's photo in KiB.")
    var photoKiB = 32

    @Option(help: "Directory for the store (replaced if it exists).")
    var dir = "demo-store.strata"

    func run() throws {
        guard employees > 0, photoKiB >= 0 else {
            Terminal.error("--employees must be positive and --photo-kib not negative")
            throw ExitCode(2)
        }
        let path = URL(fileURLWithPath: dir).standardizedFileURL.path
        try? FileManager.default.removeItem(atPath: path)
        var rows: [(String, String)] = []
        let clock = ContinuousClock()

        // 1. Write employees, each photo in the blob area and its reference in the record.
        var store = try LogStore.open(at: path, logger: CLILogging.logger)
        let writeTime = try clock.measure {
            var generator = DemoRandom(seed: 42)
            let batchSize = 500
            var written = 0
            while written < employees {
                var batch = WriteBatch()
                for id in written..<min(employees, written + batchSize) {
                    let photo = generator.bytes(photoKiB * 1024)
                    let ref = try store.writeBlob(photo)
                    batch.put(RecordKey(UInt64(id + 1)), value: DemoEmployee(id: id, salary: 50_000 + Double(id % 40) * 1_000).encoded(), blobs: [ref])
                }
                try store.commit(batch)
                written = min(employees, written + batchSize)
                Terminal.progress("writing employees", done: written, total: employees)
            }
        }
        rows.append(("employees written", "\(employees) with \(photoKiB) KiB photos in \(Terminal.seconds(writeTime))"))
        rows.append(("store size", Terminal.bytes(Terminal.directoryBytes(path))))

        // 2. The list screen: names only. Photos stay on disk.
        store.resetStatistics()
        var names = 0
        let memoryBefore = Terminal.peakResidentBytes()
        let listTime = try clock.measure {
            try store.scan(batchSize: 1_000) { records in
                for record in records where DemoEmployee.decodeName(record.value) != nil { names += 1 }
            }
        }
        let stats = store.statistics
        rows.append(("names listed", "\(names) in \(Terminal.seconds(listTime))"))
        rows.append(("  segment bytes read", Terminal.bytes(Int64(stats.segmentBytesRead))))
        rows.append(("  blob bytes read", "\(stats.blobBytesRead)"))
        rows.append(("  peak memory (process)", "\(Terminal.bytes(Int64(Terminal.peakResidentBytes()))) (was \(Terminal.bytes(Int64(memoryBefore))) before listing)"))
        rows.append(("  naive list with photos", "would load \(Terminal.bytes(Int64(employees) * Int64(photoKiB) * 1024))"))

        // 3. A raise for half the staff: new versions of their records, same photos.
        try clock.measure {
            var batch = WriteBatch()
            for id in stride(from: 0, to: employees, by: 2) {
                guard let old = try store.get(RecordKey(UInt64(id + 1))) else { continue }
                batch.put(old.key, value: DemoEmployee(id: id, salary: 80_000).encoded(), blobs: old.blobs)
            }
            try store.commit(batch)
        }.discard()
        let usageBefore = store.usage
        let compactReport = try store.compact(force: true)
        rows.append(("raise for half the staff", "record garbage \(String(format: "%.0f%%", usageBefore.recordGarbageRatio * 100)) before compaction"))
        rows.append(("compaction", "\(compactReport.recordsRewritten) records rewritten, segments \(Terminal.bytes(compactReport.segmentBytesBefore)) → \(Terminal.bytes(compactReport.segmentBytesAfter)), \(compactReport.blobsMoved) blobs moved"))
        try store.close()

        // 4. Reopen (hint files, no full scan) and verify every checksum.
        let openTime = try clock.measure { store = try LogStore.open(at: path, logger: CLILogging.logger) }
        rows.append(("reopen", "\(store.count) keys in \(Terminal.seconds(openTime))"))
        let report = try store.verify()
        rows.append(("verify", report.isSound ? "sound (\(report.recordsChecked) records, \(report.blobsChecked) blobs)" : "\(report.problems.count) problems"))
        try store.close()

        print("")
        print("Strata demo — photo list on the segment log")
        for (name, value) in rows { print("  \(name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(value)") }
        print("")
        print("The store is at \(path). Try:")
        print("  swift run strata stats \(path)")
        print("  swift run strata verify \(path)")
        if !report.isSound { throw ExitCode(1) }
    }
}

/// A demo employee's record value: id, salary and name in a small binary layout.
struct DemoEmployee {
    var id: Int
    var salary: Double

    var name: String { "Employee \(id)" }

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: UInt64(id).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: salary.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: Array(name.utf8))
        return bytes
    }

    static func decodeName(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 16 else { return nil }
        return String(decoding: bytes[16...], as: UTF8.self)
    }
}

/// Incompressible photo bytes, quickly (xorshift).
struct DemoRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func bytes(_ count: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        result.withUnsafeMutableBytes { raw in
            var i = 0
            while i + 8 <= count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                raw.storeBytes(of: state, toByteOffset: i, as: UInt64.self)
                i += 8
            }
        }
        return result
    }
}

extension Duration {
    func discard() {}
}
