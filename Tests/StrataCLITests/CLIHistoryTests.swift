import Foundation
import Strata
@testable import StrataLog
import StrataTestSupport
import Testing
import Synchronization

/// `strata history` from another process: every transaction as a JSON line, after a
/// token, and with `--follow` the writer's commits as they land, in order.
@Suite struct CLIHistoryTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Note") {
                Attribute("title", .string).preservesValueOnDeletion()
                Attribute("body", .string, optional: true)
            }
        }
    }

    static func open(_ path: String) throws -> ObjectStore {
        var options = StoreOptions()
        options.historyTracking = true
        return try ObjectStore(at: path, model: try model(), options: options)
    }

    static func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func historyPrintsOneLinePerTransaction() throws {
        let dir = try TemporaryDirectory("cli-history")
        defer { dir.remove() }
        let path = dir.appending("notes")
        let store = try Self.open(path)
        let context = store.newContext()
        context.transactionAuthor = "tester"
        let note = try context.insert("Note")
        try note.setValue("a", forKey: "title")
        try context.save()
        let afterInsert = store.currentHistoryToken.sequence
        try note.setValue("text", forKey: "body")
        try context.save()
        try context.delete(note)
        try context.save()

        // The writer keeps the store open: the command reads beside it.
        let run = try StrataProcess.run(["history", path], in: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try run.lines.map(Self.json)
        #expect(lines.count == 3)
        #expect(lines.compactMap { $0["author"] as? String } == ["tester", "tester", "tester"])
        let types = lines.map { (($0["changes"] as? [[String: Any]])?.first?["type"] as? String) ?? "" }
        #expect(types == ["insert", "update", "delete"])
        let update = try #require((lines[1]["changes"] as? [[String: Any]])?.first)
        #expect(update["updated"] as? [String] == ["body"])
        let delete = try #require((lines[2]["changes"] as? [[String: Any]])?.first)
        #expect(delete["tombstone"] as? [String: String] == ["title": "a"])
        #expect(delete["object"] as? String == note.objectID.uriRepresentation)

        let after = try StrataProcess.run(["history", path, "--after", "\(afterInsert)"], in: dir.path)
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.lines.count == 2)
        try store.close()
    }

    @Test func aStoreWithoutHistoryIsRefusedWithAReason() throws {
        let dir = try TemporaryDirectory("cli-history")
        defer { dir.remove() }
        let path = dir.appending("plain")
        try ObjectStore(at: path, model: try Self.model()).close()
        let run = try StrataProcess.run(["history", path], in: dir.path)
        #expect(run.status == 2)
        #expect(run.stderr.contains("does not track history"), "\(run.stderr)")
    }

    /// `strata history PATH --follow --interval 20` started, its lines on the pipe.
    static func follow(_ path: String) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = try StrataProcess.executableURL()
        process.arguments = ["history", path, "--follow", "--interval", "20"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, pipe)
    }

    /// A reader in another process registers on the store's LOCK file while it has the
    /// store open, and its registration goes with it: the writer's compaction cuts no
    /// retired file meanwhile (FileReclaimerTests shows the cut honouring it).
    @Test(.timeLimit(.minutes(1))) func aFollowingProcessIsRegisteredAsAReaderUntilItEnds() throws {
        let dir = try TemporaryDirectory("cli-history")
        defer { dir.remove() }
        let path = dir.appending("notes")
        let store = try Self.open(path)
        defer { try? store.close() }
        let context = store.newContext()
        try context.insert("Note").setValue("first", forKey: "title")
        try context.save()
        let lock = path + "/LOCK"
        #expect(!POSIXFileSystem().readersHold(lock))

        let (process, pipe) = try Self.follow(path)
        defer { if process.isRunning { process.terminate() } }
        // Its first line comes after its open, and so after its registration.
        var seen = Data()
        while !seen.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        #expect(!seen.isEmpty)
        #expect(POSIXFileSystem().readersHold(lock))
        process.terminate()
        process.waitUntilExit()
        #expect(!POSIXFileSystem().readersHold(lock))
    }

    /// A second process follows the writer: every commit arrives, once, in order. The
    /// delay from each commit to its line is printed (the feed polls every 20 ms here).
    @Test func followSeesTheWritersCommitsAsTheyLand() throws {
        let dir = try TemporaryDirectory("cli-history")
        defer { dir.remove() }
        let path = dir.appending("notes")
        let store = try Self.open(path)
        defer { try? store.close() }

        let (process, pipe) = try Self.follow(path)
        defer { if process.isRunning { process.terminate() } }
        let arrivals = Mutex<[(UInt64, ContinuousClock.Instant)]>([])
        let reader = Thread {
            var pending = Data()
            while true {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { return }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = pending[pending.startIndex..<newline]
                    pending = Data(pending[(newline + 1)...])
                    if let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any], let token = object["token"] as? Int {
                        let now = ContinuousClock.now
                        arrivals.withLock { $0.append((UInt64(token), now)) }
                    }
                }
            }
        }
        reader.start()

        let context = store.newContext()
        var commits: [(UInt64, ContinuousClock.Instant)] = []
        for i in 0..<40 {
            let note = try context.insert("Note")
            try note.setValue("n\(i)", forKey: "title")
            try context.save()
            commits.append((store.currentHistoryToken.sequence, ContinuousClock.now))
            Thread.sleep(forTimeInterval: 0.025)
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while arrivals.withLock({ $0.count }) < commits.count && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        process.terminate()
        process.waitUntilExit()
        let seen = arrivals.withLock { $0 }
        #expect(seen.map(\.0) == commits.map(\.0))
        let delays = zip(commits, seen).map { commit, arrival in arrival.1 - commit.1 }.sorted()
        if let p99 = delays.last, let median = delays.dropFirst(delays.count / 2).first {
            print("strata history --follow --interval 20: commit-to-line delay median \(median), max \(p99) over \(delays.count) commits")
            // The poll's interval plus a refresh, with room for a machine busy with other
            // tests; a follow that waited out anything but its interval would miss it.
            #expect(p99 < .seconds(10))
        }
    }
}
