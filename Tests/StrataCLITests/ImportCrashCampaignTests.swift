import Foundation
import Testing
import Logging
import Strata
import StrataTestSupport

/// `strata import` killed with SIGKILL at random moments (the import share of `make
/// crash-campaign`, 20% of `STRATA_CRASH_CAMPAIGN`): import commits one transaction per
/// batch of lines, so the store must reopen holding exactly the first k × batch lines
/// (or all of them) — a prefix, with every value as its line wrote it — and verify sound.
@Suite(.serialized) struct ImportCrashCampaignTests {
    static let lines = 3_000
    static let batch = 100

    static let modelJSON = """
    {"formatVersion": 1, "version": "1", "entities": [{"name": "Item", "properties": [
      {"kind": "attribute", "name": "n", "type": "int64", "indexed": true},
      {"kind": "attribute", "name": "text", "type": "string"},
      {"kind": "attribute", "name": "data", "type": "binary", "optional": true, "externalStorage": true}]}]}
    """

    static func text(_ n: Int) -> String { "item \(n) " + String(repeating: "\(n % 10)", count: 40 + n % 50) }

    /// Every tenth line carries a 12 KiB binary: above the external-storage threshold.
    static func data(_ n: Int) -> Data? { n % 10 == 0 ? Data((0..<(12 << 10)).map { UInt8(truncatingIfNeeded: $0 &* (n + 1)) }) : nil }

    static func input() -> String {
        (0..<lines).map { n in
            var line = #"{"@entity": "Item", "n": \#(n), "text": "\#(text(n))""#
            if let data = data(n) { line += #", "data": {"@base64": "\#(data.base64EncodedString())"}"# }
            return line + "}"
        }.joined(separator: "\n") + "\n"
    }

    /// What the reopened store holds, and how it differs from a prefix of whole batches.
    struct Judgement {
        var objects = 0
        var problems: [String] = []
        var hole = false
        var sound = false
    }

    static func judge(_ path: String, model: ObjectModel) throws -> Judgement {
        var options = StoreOptions()
        options.logger = .quiet
        let store = try ObjectStore(at: path, model: model, options: options)
        defer { try? store.close() }
        var judgement = Judgement()
        // The context must outlive the objects read through it.
        let context = store.newContext()
        defer { withExtendedLifetime(context) {} }
        let items = try context.fetch(FetchRequest(entityName: "Item", sortKeys: [SortKey("n")]))
        judgement.objects = items.count
        for (index, item) in items.enumerated() {
            guard let n = try item.int("n") else { judgement.problems.append("an item without n"); continue }
            if n != index {
                judgement.hole = judgement.hole || n > index
                judgement.problems.append("item \(index) of the sorted store is line \(n)")
                break
            }
            if try item.string("text") != text(n) || item.data("data") != data(n) { judgement.problems.append("line \(n) reads back different") }
        }
        if items.count % batch != 0 && items.count != lines {
            judgement.problems.append("\(items.count) items: not a whole number of \(batch)-line transactions")
        }
        judgement.sound = try store.verify().isSound
        return judgement
    }

    /// The oracle can fail: a store missing one line of a committed batch is a hole.
    @Test func theOracleFindsAHole() throws {
        let directory = try TemporaryDirectory("import-crash-oracle")
        defer { directory.remove() }
        let modelPath = directory.appending("model.json"), store = directory.appending("store")
        try Data(Self.modelJSON.utf8).write(to: URL(fileURLWithPath: modelPath))
        #expect(try StrataProcess.run(["create", store, "--model", modelPath], in: directory.path).status == 0)
        let input = (0..<200).map { #"{"@entity": "Item", "n": \#($0), "text": "\#(Self.text($0))"}"# }.joined(separator: "\n")
        #expect(try StrataProcess.run(["import", store, "--batch", "\(Self.batch)"], input: input, in: directory.path).status == 0)
        let model = try ObjectModel(contentsOf: URL(fileURLWithPath: modelPath))
        #expect(try Self.judge(store, model: model).problems.filter { $0.contains("reads back") }.count == 20) // no binaries given
        var options = StoreOptions()
        options.logger = .quiet
        let opened = try ObjectStore(at: store, model: model, options: options)
        let context = opened.newContext()
        let items = try context.fetch(FetchRequest(entityName: "Item", predicate: try Predicate(format: "n == 57")))
        for item in items { try context.delete(item) }
        try context.save()
        try opened.close()
        let judgement = try Self.judge(store, model: model)
        #expect(judgement.hole)
        #expect(judgement.problems.contains { $0.contains("is line 58") })
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["STRATA_CRASH_CAMPAIGN"] != nil))
    func importsKilledAtRandom() throws {
        let total = ProcessInfo.processInfo.environment["STRATA_CRASH_CAMPAIGN"].flatMap(Int.init) ?? 0
        let rounds = max(5, total * 20 / 100)
        let began = ContinuousClock.now
        let directory = try TemporaryDirectory("import-crash")
        defer { directory.remove() }
        let modelPath = directory.appending("model.json"), template = directory.appending("template"), inputPath = directory.appending("input.jsonl")
        try Data(Self.modelJSON.utf8).write(to: URL(fileURLWithPath: modelPath))
        try Data(Self.input().utf8).write(to: URL(fileURLWithPath: inputPath))
        #expect(try StrataProcess.run(["create", template, "--model", modelPath], in: directory.path).status == 0)
        let model = try ObjectModel(contentsOf: URL(fileURLWithPath: modelPath))

        // An uninterrupted import sets the span the kills are spread over.
        let timing = directory.appending("timing")
        try FileManager.default.copyItem(atPath: template, toPath: timing)
        let start = ContinuousClock.now
        let full = try Self.launch(timing, input: inputPath)
        full.waitUntilExit()
        let span = (ContinuousClock.now - start).components
        let spanMicros = Int(span.seconds * 1_000_000 + span.attoseconds / 1_000_000_000_000) * 12 / 10
        #expect(full.terminationStatus == 0)
        #expect(try Self.judge(timing, model: model).objects == Self.lines)

        var random = SeededRandom(seed: 0x1A7E)
        var kills = 0, finished = 0, opened = 0, verified = 0, holes = 0, mismatches = 0
        var counts: [Int] = []
        for round in 0..<rounds {
            let path = directory.appending("round-\(round)")
            try FileManager.default.copyItem(atPath: template, toPath: path)
            let process = try Self.launch(path, input: inputPath)
            // Stratified over the span, so kills land from open to the last commit.
            let low = spanMicros * round / rounds, high = spanMicros * (round + 1) / rounds
            usleep(UInt32(random.int(in: low...max(low, high - 1))))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL { kills += 1 } else { finished += 1 }
            let context = "round \(round + 1)/\(rounds), store \(path)"
            do {
                let judgement = try Self.judge(path, model: model)
                opened += 1
                if judgement.sound { verified += 1 }
                if judgement.hole { holes += 1 } else if !judgement.problems.isEmpty { mismatches += 1 }
                counts.append(judgement.objects)
                #expect(judgement.problems.isEmpty && judgement.sound, "\(context): \(judgement.problems), sound \(judgement.sound)")
            } catch {
                Issue.record("\(context): the store does not open after the kill: \(error)")
            }
            try FileManager.default.removeItem(atPath: path)
        }
        let landed = counts.filter { $0 > 0 && $0 < Self.lines }.count
        print("crash-campaign import: kills \(kills), stores opened \(opened), verified \(verified), holes \(holes), mismatches \(mismatches) (\(rounds) rounds, \(finished) finished before the kill, \(landed) stopped mid-import; \(Self.lines) lines in \(Self.batch)-line transactions), \((ContinuousClock.now - began).components.seconds) s")
        #expect(opened == rounds && verified == rounds && holes == 0 && mismatches == 0)
        #expect(landed > 0, "no kill landed inside the import")
    }

    static func launch(_ store: String, input: String) throws -> Process {
        let process = Process()
        process.executableURL = try StrataProcess.executableURL()
        process.arguments = ["import", store, "--file", input, "--batch", "\(batch)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}
