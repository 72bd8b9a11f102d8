import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Synchronization
import Testing
@testable import TodosApp

@Suite("Live server")
struct LiveServerTests {
    /// `/health` must stay fast while the store is saturated with durable writes. On a
    /// 2-core machine the cooperative pool has two threads: a store that did its I/O
    /// on them would hold both behind fsyncs and the probes would wait hundreds of
    /// milliseconds, so this fails when store work runs on the pool.
    @Test("health answers within 100 ms at p99 under 64 clients of /updates?queries=20", arguments: engines)
    func healthUnderWriteLoad(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.live) { client in
                let port = try #require(client.port)
                let result = try await LoadRun.healthDuringUpdates(port: port, clients: 64, probes: 200)
                let p99 = result.probeLatencies.sorted()[result.probeLatencies.count * 99 / 100 - 1]
                #expect(result.failedUpdates == 0, "updates that did not answer 200: \(result.failedUpdates)")
                #expect(result.completedUpdates >= 64, "the load did not run: \(result.completedUpdates) updates")
                #expect(p99 < .milliseconds(100), "health p99 \(p99) over \(result.probeLatencies.count) probes, \(result.completedUpdates) updates")
            }
        }
    }

    /// Shutdown while todos are being posted: the server drains, the store closes
    /// last, and every todo that got a 201 is there after the store is opened again.
    @Test("every acknowledged todo survives a graceful shutdown under load", arguments: engines)
    func acknowledgedTodosSurviveShutdown(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let arguments = TestArguments(engine: engine, dataPath: directory)
            let app = try await buildApplication(arguments)
            let posting = try await app.test(.live) { client in
                let port = try #require(client.port)
                let progress = LoadRun.Progress()
                let posting = Task { try await LoadRun.postTodos(port: port, clients: 16, maximum: 4_000, progress: progress) }
                // Let some todos be acknowledged; returning starts the shutdown while
                // the clients are still posting.
                let deadline = ContinuousClock.now + .seconds(10)
                while progress.acknowledged.load(ordering: .relaxed) < 100 && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                return posting
            }
            let acknowledged = try await posting.value
            #expect(acknowledged.count >= 100)

            let reopened = try await buildApplication(arguments)
            try await reopened.test(.router) { client in
                let stored = Dictionary(uniqueKeysWithValues: try await client.allTodos().map { ($0.id, $0) })
                for todo in acknowledged {
                    #expect(stored[todo.id] == todo, "todo \(todo.id) acknowledged with 201")
                }
            }
        }
    }
}

/// Clients of a live server over loopback, each on an event loop of its own so that
/// their timing is not the server's.
enum LoadRun {
    struct HealthResult {
        var probeLatencies: [Duration]
        var completedUpdates: Int
        var failedUpdates: Int
    }

    /// Runs `clients` loops of `/updates?queries=20` and, once they are going, `probes`
    /// sequential `/health` requests 10 ms apart on a connection of their own.
    static func healthDuringUpdates(port: Int, clients: Int, probes: Int) async throws -> HealthResult {
        let loadGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let probeGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: clients)
        let loadClient = HTTPClient(eventLoopGroup: loadGroup, configuration: configuration)
        let probeClient = HTTPClient(eventLoopGroup: probeGroup)
        let counters = Counters()
        let base = "http://127.0.0.1:\(port)"
        do {
            _ = try await get(probeClient, "\(base)/health")  // opens the probe's connection
            let latencies = try await withThrowingTaskGroup(of: Void.self) { group -> [Duration] in
                for _ in 0..<clients {
                    group.addTask {
                        // Bounded twice: by the probes' end and by a count.
                        for _ in 0..<2_000 where !counters.stop.load(ordering: .relaxed) {
                            let status = try await get(loadClient, "\(base)/updates?queries=20").status
                            if status == .ok { counters.completed.add(1, ordering: .relaxed) } else { counters.failed.add(1, ordering: .relaxed) }
                        }
                    }
                }
                let start = ContinuousClock.now
                while counters.completed.load(ordering: .relaxed) < clients && ContinuousClock.now - start < .seconds(20) {
                    try await Task.sleep(for: .milliseconds(5))
                }
                var latencies: [Duration] = []
                for _ in 0..<probes {
                    let sent = ContinuousClock.now
                    let response = try await get(probeClient, "\(base)/health")
                    latencies.append(sent.duration(to: .now))
                    #expect(response.status == .ok)
                    try await Task.sleep(for: .milliseconds(10))
                }
                counters.stop.store(true, ordering: .relaxed)
                try await group.waitForAll()
                return latencies
            }
            try await loadClient.shutdown()
            try await probeClient.shutdown()
            try await loadGroup.shutdownGracefully()
            try await probeGroup.shutdownGracefully()
            return HealthResult(probeLatencies: latencies, completedUpdates: counters.completed.load(ordering: .relaxed),
                                failedUpdates: counters.failed.load(ordering: .relaxed))
        } catch {
            counters.stop.store(true, ordering: .relaxed)
            try? await loadClient.shutdown()
            try? await probeClient.shutdown()
            try? await loadGroup.shutdownGracefully()
            try? await probeGroup.shutdownGracefully()
            throw error
        }
    }

    /// How far a run has got, for its caller to watch.
    final class Progress: Sendable {
        let acknowledged = Atomic(0)
        let todos = Mutex<[Todo]>([])
    }

    /// The load loops' shared state.
    private final class Counters: Sendable {
        let stop = Atomic(false)
        let completed = Atomic(0)
        let failed = Atomic(0)
    }

    /// Posts todos from `clients` connections until `maximum` were acknowledged or the
    /// server stops answering; returns every todo that got a 201.
    static func postTodos(port: Int, clients: Int, maximum: Int, progress: Progress) async throws -> [Todo] {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: clients)
        // A refused connection is retried until the connect timeout: once the server
        // has stopped, give up soon.
        configuration.timeout = .init(connect: .seconds(1), read: .seconds(30))
        let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
        await withTaskGroup(of: Void.self) { tasks in
            for worker in 0..<clients {
                tasks.addTask {
                    for n in 0..<maximum {
                        guard progress.acknowledged.load(ordering: .relaxed) < maximum else { return }
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/todos")
                        request.method = .POST
                        request.headers.add(name: "Content-Type", value: "application/json")
                        let title = "worker \(worker) todo \(n)"
                        request.body = .bytes(ByteBuffer(string: #"{"title":"\#(title)"}"#))
                        // A refused connection or a 503 means the server is going away.
                        guard let response = try? await client.execute(request, timeout: .seconds(30)),
                              let body = try? await response.body.collect(upTo: 1 << 16),
                              response.status == .created,
                              let todo = try? jsonDecoder.decode(Todo.self, from: Data(buffer: body))
                        else { return }
                        progress.todos.withLock { $0.append(todo) }
                        progress.acknowledged.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        try await client.shutdown()
        try await group.shutdownGracefully()
        return progress.todos.withLock { $0 }
    }

    private static func get(_ client: HTTPClient, _ url: String) async throws -> HTTPClientResponse {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response
    }
}
