import AsyncHTTPClient
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Strata
import Synchronization
import Testing
@testable import TodosApp

/// Serialized: one engine's 64 writers at a time, so that the load test does not
/// double the load on a small machine.
@Suite("Backup", .serialized)
struct BackupTests {
    @Test("without a backup directory POST /admin/backup is 404", arguments: engines)
    func absentWithoutDirectory(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.router) { client in
                try await client.execute(uri: "/admin/backup", method: .post) { response in
                    #expect(response.status == .notFound)
                }
            }
        }
    }

    /// The backup directory removed under a running server: a 500 that names it, not
    /// a 404 that would read as a missing route.
    @Test("a backup directory removed under the server is a 500 naming it", arguments: engines)
    func removedDirectory(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let backups = (directory as NSString).appendingPathComponent("backups")
            let arguments = TestArguments(engine: engine, dataPath: (directory as NSString).appendingPathComponent("data"), backupDirectory: backups)
            let app = try await buildApplication(arguments)
            try await app.test(.router) { client in
                try FileManager.default.removeItem(atPath: backups)
                try await client.execute(uri: "/admin/backup", method: .post) { response in
                    #expect(response.status == .internalServerError)
                    #expect(response.errorCode == "backupDirectoryMissing")
                }
            }
        }
    }

    @Test("each backup is a new directory the server names inside its backup directory", arguments: engines)
    func namesInsideDirectory(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let backups = (directory as NSString).appendingPathComponent("backups")
            let arguments = TestArguments(engine: engine, dataPath: (directory as NSString).appendingPathComponent("data"), backupDirectory: backups)
            let app = try await buildApplication(arguments)
            try await app.test(.router) { client in
                _ = try await client.createTodo("before the backups")
                var paths: Set<String> = []
                for _ in 0..<2 {
                    let summary = try await client.execute(uri: "/admin/backup", method: .post) { response in
                        try #require(response.status == .created, "POST /admin/backup answered \(response.status)")
                        return try response.decoded(as: BackupSummary.self)
                    }
                    #expect(summary.path.hasPrefix(backups + "/backup-"))
                    #expect(FileManager.default.fileExists(atPath: summary.path))
                    #expect(summary.files >= 1 && summary.bytes > 0)
                    if engine == .sqlite {
                        #expect(summary.sequence == 1, "SQLite's sequence is the number of todos in the copy")
                    }
                    paths.insert(summary.path)
                }
                #expect(paths.count == 2)
            }
        }
    }

    /// 64 connections post todos for about two seconds; partway through, the test notes
    /// every todo acknowledged so far, then asks for a backup, and the clients go on
    /// posting until a while after it answered. The backup must open, verify sound, and
    /// hold each noted todo with its title: all of them were durable before the
    /// request was sent. A backup of the store as it was before the writes holds none
    /// of them and fails.
    @Test(
        "a backup taken while 64 connections write opens, verifies sound, and holds every todo acknowledged before it began",
        .timeLimit(.minutes(2)),
        arguments: engines)
    func backupUnderWriteLoad(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let backups = (directory as NSString).appendingPathComponent("backups")
            let arguments = TestArguments(engine: engine, dataPath: (directory as NSString).appendingPathComponent("data"), backupDirectory: backups)
            let app = try await buildApplication(arguments)
            let run = try await app.test(.live) { client in
                try await BackupUnderLoad.run(port: try #require(client.port), clients: 64)
            }
            #expect(run.failures == 0, "posts that did not answer 201: \(run.failures)")
            // Not vacuous: the backup had todos to hold, and the server kept taking
            // writes after it answered.
            try #require(run.before.count >= 64, "only \(run.before.count) todos acknowledged before the backup")
            #expect(run.acknowledgedAfterAnswer > 0, "no todo was acknowledged after the backup answered")
            let summary = run.summary
            #expect(summary.path.hasPrefix(backups + "/backup-"))

            let stored = try await Self.openBackup(engine: engine, summary: summary)

            let storedByID = Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0.title) })
            let missing = run.before.filter { storedByID[$0.id] != $0.title }
            let missingCount = missing.count
            #expect(missingCount == 0, """
                \(missing.count) of the \(run.before.count) todos acknowledged before the backup are not in it \
                (the copy holds \(stored.count) todos); first: \(missing.prefix(5).map { "\($0.id) \($0.title)" })
                """)
            // Nothing in the copy that no client was told was stored: every post got a
            // 201, so every todo in the copy is one of them, with its title.
            let acknowledged = Dictionary(uniqueKeysWithValues: run.all.map { ($0.id, $0.title) })
            let unknown = stored.filter { acknowledged[$0.id] != $0.title }
            let unknownCount = unknown.count
            #expect(unknownCount == 0, "todos in the copy no client was acknowledged: \(unknown.prefix(5).map { "\($0.id) \($0.title)" })")
            if engine == .sqlite {
                #expect(summary.sequence == UInt64(stored.count), "SQLite's sequence is the number of todos in the copy")
            }
        }
    }

    /// Opens the copy as its engine does, checks it, and returns its todos.
    static func openBackup(engine: Engine, summary: BackupSummary) async throws -> [Todo] {
        switch engine {
        case .strata:
            let store = try await ObjectStore.open(at: summary.path, model: try StrataRepository.makeModel())
            do {
                let report = try store.verify()
                #expect(report.isSound, "verify: \(report)")
                let todos = try await store.read { context in
                    try context.fetch(FetchRequest(entityName: "Todo")).map { try Todo($0) }
                }
                try await store.close()
                return todos
            } catch {
                try? await store.close()
                throw error
            }
        case .sqlite:
            let queue = try DatabaseQueue(path: summary.path)
            defer { try? queue.close() }
            let check = try await queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            #expect(check == ["ok"], "integrity_check: \(check)")
            return try await queue.read { db in try Todo.fetchAll(db) }
        }
    }
}

/// 64 clients posting todos around one `POST /admin/backup`.
enum BackupUnderLoad {
    struct Acknowledged: Sendable {
        var id: Int
        var title: String
        /// When the client had read the 201.
        var at: ContinuousClock.Instant
    }

    struct Outcome {
        /// Every todo acknowledged before the backup request was sent.
        var before: [Acknowledged]
        /// Every todo acknowledged.
        var all: [Acknowledged]
        var acknowledgedAfterAnswer: Int
        var failures: Int
        var summary: BackupSummary
    }

    private final class Shared: Sendable {
        let stop = Atomic(false)
        let failures = Atomic(0)
        let acknowledged = Mutex<[Acknowledged]>([])
        var count: Int { acknowledged.withLock { $0.count } }
    }

    /// Writes for at least two seconds and until `clients` todos were acknowledged after
    /// the backup answered, each bound by a deadline; asks for the backup once a second
    /// has passed and `clients` todos were acknowledged.
    static func run(port: Int, clients: Int) async throws -> Outcome {
        // The writers and the backup request each on an event loop of their own, so
        // that the backup does not queue behind the writers' connections.
        let loadGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let adminGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: clients)
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        let loadClient = HTTPClient(eventLoopGroup: loadGroup, configuration: configuration)
        let adminClient = HTTPClient(eventLoopGroup: adminGroup)
        let shared = Shared()
        let base = "http://127.0.0.1:\(port)"
        do {
            let outcome = try await withThrowingTaskGroup(of: Void.self) { writers -> Outcome in
                for worker in 0..<clients {
                    writers.addTask {
                        for n in 0..<10_000 where !shared.stop.load(ordering: .relaxed) {
                            let title = "worker \(worker) todo \(n)"
                            var request = HTTPClientRequest(url: "\(base)/todos")
                            request.method = .POST
                            request.headers.add(name: "Content-Type", value: "application/json")
                            request.body = .bytes(ByteBuffer(string: #"{"title":"\#(title)"}"#))
                            guard let response = try? await loadClient.execute(request, timeout: .seconds(30)),
                                  let body = try? await response.body.collect(upTo: 1 << 16),
                                  response.status == .created,
                                  let todo = try? jsonDecoder.decode(Todo.self, from: Data(buffer: body)),
                                  todo.title == title
                            else {
                                shared.failures.add(1, ordering: .relaxed)
                                continue
                            }
                            let acknowledged = Acknowledged(id: todo.id, title: todo.title, at: .now)
                            shared.acknowledged.withLock { $0.append(acknowledged) }
                        }
                    }
                }
                defer { shared.stop.store(true, ordering: .relaxed) }

                let start = ContinuousClock.now
                while start.duration(to: .now) < .seconds(1) || shared.count < clients {
                    guard start.duration(to: .now) < .seconds(20) else { break }
                    try await Task.sleep(for: .milliseconds(10))
                }
                // Each todo in the list was acknowledged before it was appended: all of
                // these were durable before the request below is sent.
                let before = shared.acknowledged.withLock { $0 }
                var request = HTTPClientRequest(url: "\(base)/admin/backup")
                request.method = .POST
                let response = try await adminClient.execute(request, timeout: .seconds(60))
                let body = try await response.body.collect(upTo: 1 << 16)
                try #require(response.status == .created, "POST /admin/backup answered \(response.status): \(String(buffer: body))")
                let summary = try jsonDecoder.decode(BackupSummary.self, from: Data(buffer: body))
                let answered = ContinuousClock.now

                func acknowledgedAfterAnswer() -> Int {
                    shared.acknowledged.withLock { todos in todos.reduce(0) { $0 + ($1.at > answered ? 1 : 0) } }
                }
                while start.duration(to: .now) < .seconds(2) || acknowledgedAfterAnswer() < clients {
                    guard answered.duration(to: .now) < .seconds(10) else { break }
                    try await Task.sleep(for: .milliseconds(10))
                }
                shared.stop.store(true, ordering: .relaxed)
                try await writers.waitForAll()
                return Outcome(
                    before: before, all: shared.acknowledged.withLock { $0 },
                    acknowledgedAfterAnswer: acknowledgedAfterAnswer(),
                    failures: shared.failures.load(ordering: .relaxed), summary: summary)
            }
            try await loadClient.shutdown()
            try await adminClient.shutdown()
            try await loadGroup.shutdownGracefully()
            try await adminGroup.shutdownGracefully()
            return outcome
        } catch {
            shared.stop.store(true, ordering: .relaxed)
            try? await loadClient.shutdown()
            try? await adminClient.shutdown()
            try? await loadGroup.shutdownGracefully()
            try? await adminGroup.shutdownGracefully()
            throw error
        }
    }
}
