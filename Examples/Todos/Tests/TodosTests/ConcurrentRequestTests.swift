import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Synchronization
import Testing
@testable import TodosApp

#if canImport(Glibc)
import Glibc
#endif

/// Requests that race one another, and clients that go away mid-request, against
/// each engine (and against two instances serving one store on PostgreSQL, where
/// saves of one todo conflict across processes and `write` retries them).
@Suite("Concurrent requests", .serialized)
struct ConcurrentRequestTests {
    @Test("concurrent PATCHes of one todo all answer, and the last write is what is stored", arguments: engines)
    func concurrentPatches(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.live) { client in
                let todo = try await client.createTodo("contended")
                let port = try #require(client.port)
                let outcome = try await PatchRace.run(ports: [port], todo: todo.id, clients: 16, patchesEach: 10)
                #expect(outcome.failures.isEmpty, "\(outcome.failures.prefix(5))")
                #expect(outcome.ok + outcome.conflicts == 160)
                try await client.execute(uri: "/todos/\(todo.id)", method: .get) { response in
                    let stored = try response.decoded(as: Todo.self)
                    #expect(outcome.sentOrders.contains(stored.order ?? -1), "the stored order is one a PATCH sent")
                    #expect(stored.title == "contended")
                }
            }
        }
    }

    /// Two instances on one store: their saves of the same todo conflict, and
    /// `ObjectStore.write` retries each conflict with the object read again; a request
    /// that runs out of retries is a 409, never a 5xx or a lost write.
    @Test("two instances PATCHing one todo on PostgreSQL: conflicts are retried", .enabled(if: PostgresServer.location != nil))
    func conflictsAcrossInstances() async throws {
        try await PostgresServer.withStore { directory, store in
            let first = try await buildApplication(TestArguments(engine: .strata, dataPath: directory + "/a", storeLocation: store))
            let second = try await buildApplication(TestArguments(engine: .strata, dataPath: directory + "/b", storeLocation: store))
            try await first.test(.live) { one in
                try await second.test(.live) { other in
                    let todo = try await one.createTodo("contended across instances")
                    let retriedBefore = try await Self.conflictsRetried(one)
                    let ports = [try #require(one.port), try #require(other.port)]
                    let outcome = try await PatchRace.run(ports: ports, todo: todo.id, clients: 16, patchesEach: 10)
                    #expect(outcome.failures.isEmpty, "\(outcome.failures.prefix(5))")
                    #expect(outcome.ok + outcome.conflicts == 160)
                    let retried = try await Self.conflictsRetried(one) - retriedBefore
                    #expect(retried > 0, "two instances writing one todo met no conflict to retry")
                    print("PostgreSQL service: 160 PATCHes from two instances, \(outcome.ok) answered 200, \(outcome.conflicts) 409, \(retried) conflicts retried")
                    try await other.execute(uri: "/todos/\(todo.id)", method: .get) { response in
                        let stored = try response.decoded(as: Todo.self)
                        #expect(outcome.sentOrders.contains(stored.order ?? -1))
                    }
                }
            }
        }
    }

    @Test("clients that hang up in the middle of their POSTs leave the service serving", arguments: engines)
    func abandonedRequests(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.live) { client in
                let port = try #require(client.port)
                let abandoned = 32
                for i in 0..<abandoned {
                    let body = #"{"title":"abandoned \#(i)"}"#
                    // Every other one hangs up before its body is complete.
                    let cut = i.isMultiple(of: 2) ? body.utf8.count : body.utf8.count / 2
                    let request = "POST /todos HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + String(decoding: body.utf8.prefix(cut), as: UTF8.self)
                    try RawSocket.sendAndHangUp(port: port, request)
                }
                try await Task.sleep(for: .milliseconds(300))
                try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
                let after = try await client.createTodo("after the hang-ups")
                let todos = try await client.allTodos()
                #expect(todos.contains(after))
                for todo in todos where todo != after {
                    #expect(todo.title.hasPrefix("abandoned "), "only whole requests were stored: \(todo.title)")
                }
                #expect(todos.count <= abandoned / 2 + 1, "a request cut before its body ended stored nothing")
            }
        }
    }

    /// Past `--max-pending-writes`, `ObjectStore.write` throws `.limitExceeded` at once
    /// and the service answers 503 naming it, with `Retry-After`; a refused POST stores nothing, and the
    /// service takes writes again once the burst has passed.
    @Test("past --max-pending-writes, POSTs are answered 503 limitExceeded and store nothing")
    func writesPastTheLimitAreRefused() async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: .strata, dataPath: directory, maxPendingWrites: 1))
            try await app.test(.live) { client in
                let port = try #require(client.port)
                var outcome = PostBurst.Outcome()
                // 64 clients at once against a limit of one: writes overlap within a
                // burst or two (each holds its place through its fsync).
                for round in 0..<5 where outcome.refused.isEmpty {
                    let burst = try await PostBurst.run(port: port, round: round, clients: 64, postsEach: 4)
                    outcome.created.formUnion(burst.created)
                    outcome.refused.formUnion(burst.refused)
                    outcome.failures += burst.failures
                }
                #expect(outcome.failures.isEmpty, "\(outcome.failures.prefix(5))")
                #expect(!outcome.refused.isEmpty, "no POST was refused with one pending write allowed")
                #expect(!outcome.created.isEmpty)
                let stored = Set(try await client.allTodos().map(\.title))
                #expect(stored == outcome.created, "every 201 is stored, and no 503")
                _ = try await client.createTodo("after the burst")
            }
        }
    }

    @Test("--max-pending-writes below one, or with SQLite, is refused before the server starts")
    func maxPendingWritesIsChecked() async throws {
        try await withTemporaryDirectory { directory in
            await #expect(throws: AppConfigurationError.self) {
                _ = try await buildApplication(TestArguments(engine: .strata, dataPath: directory + "/zero", maxPendingWrites: 0))
            }
            await #expect(throws: AppConfigurationError.self) {
                _ = try await buildApplication(TestArguments(engine: .sqlite, dataPath: directory + "/sqlite", maxPendingWrites: 8))
            }
        }
    }

    /// The `strata_conflicts_retried` counters of the process's metrics (one registry
    /// for the process: either instance's `/metrics` shows both stores' retries).
    static func conflictsRetried(_ client: some TestClientProtocol) async throws -> Double {
        try await client.execute(uri: "/metrics", method: .get) { response in
            String(buffer: response.body).split(separator: "\n")
                .filter { $0.hasPrefix("strata_conflicts_retried") }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
                .reduce(0, +)
        }
    }
}

/// `clients` tasks at once over one HTTP client, each sending `requestsEach` requests
/// one after another: `request(worker, n)` makes each, and `answered` takes its
/// response and body, or the error that stopped it.
enum ConcurrentClients {
    static func run(clients: Int, requestsEach: Int,
                    request: @escaping @Sendable (_ worker: Int, _ n: Int) -> HTTPClientRequest,
                    answered: @escaping @Sendable (_ worker: Int, _ n: Int, Result<(HTTPClientResponse, ByteBuffer), any Error>) -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: clients)
        let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
        await withTaskGroup(of: Void.self) { tasks in
            for worker in 0..<clients {
                tasks.addTask {
                    for n in 0..<requestsEach {
                        do {
                            let response = try await client.execute(request(worker, n), timeout: .seconds(30))
                            let body = try await response.body.collect(upTo: 1 << 16)
                            answered(worker, n, .success((response, body)))
                        } catch {
                            answered(worker, n, .failure(error))
                        }
                    }
                }
            }
        }
        try await client.shutdown()
        try await group.shutdownGracefully()
    }
}

/// Clients PATCHing one todo's `order` at once, spread over the given servers.
enum PatchRace {
    struct Outcome {
        var ok = 0
        var conflicts = 0
        var failures: [String] = []
        var sentOrders = Set<Int>()
    }

    static func run(ports: [Int], todo: Int, clients: Int, patchesEach: Int) async throws -> Outcome {
        let outcome = Mutex(Outcome())
        try await ConcurrentClients.run(clients: clients, requestsEach: patchesEach, request: { worker, n in
            let order = worker * 1_000 + n
            outcome.withLock { _ = $0.sentOrders.insert(order) }
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(ports[worker % ports.count])/todos/\(todo)")
            request.method = .PATCH
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: #"{"order":\#(order),"completed":\#(n.isMultiple(of: 2))}"#))
            return request
        }, answered: { _, _, result in
            outcome.withLock { outcome in
                switch result {
                case .success((let response, let body)):
                    switch response.status.code {
                    case 200: outcome.ok += 1
                    case 409: outcome.conflicts += 1
                    default: outcome.failures.append("\(response.status.code): \(String(buffer: body))")
                    }
                case .failure(let error):
                    outcome.failures.append("\(error)")
                }
            }
        })
        return outcome.withLock { $0 }
    }
}

/// Clients POSTing todos with titles of their own at once.
enum PostBurst {
    struct Outcome {
        /// Titles answered 201.
        var created = Set<String>()
        /// Titles answered 503 with the error code `limitExceeded` and `Retry-After: 1`.
        var refused = Set<String>()
        /// Any other answer, or a request that failed.
        var failures: [String] = []
    }

    static func run(port: Int, round: Int, clients: Int, postsEach: Int) async throws -> Outcome {
        let outcome = Mutex(Outcome())
        @Sendable func title(_ worker: Int, _ n: Int) -> String { "burst \(round)-\(worker)-\(n)" }
        try await ConcurrentClients.run(clients: clients, requestsEach: postsEach, request: { worker, n in
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/todos")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: #"{"title":"\#(title(worker, n))"}"#))
            return request
        }, answered: { worker, n, result in
            outcome.withLock { outcome in
                switch result {
                case .success((let response, let body)):
                    let code = (try? jsonDecoder.decode(ErrorBody.self, from: Data(buffer: body)))?.error
                    switch (response.status.code, code) {
                    case (201, _): outcome.created.insert(title(worker, n))
                    case (503, "limitExceeded") where response.headers.first(name: "Retry-After") == "1": outcome.refused.insert(title(worker, n))
                    default: outcome.failures.append("\(response.status.code): \(String(buffer: body))")
                    }
                case .failure(let error):
                    outcome.failures.append("\(error)")
                }
            }
        })
        return outcome.withLock { $0 }
    }
}

/// A client that writes a request and closes its socket without reading an answer,
/// or reads what the server answers before it closes.
enum RawSocket {
    static func sendAndHangUp(port: Int, _ request: String) throws {
        let descriptor = try connected(port: port)
        defer { close(descriptor) }
        try send(request, to: descriptor)
    }

    /// Sends `request` and returns what arrives until the server closes the
    /// connection or is silent for two seconds.
    static func exchange(port: Int, _ request: String) throws -> String {
        let descriptor = try connected(port: port)
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try send(request, to: descriptor)
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    private static func connected(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        return descriptor
    }

    private static func send(_ request: String, to descriptor: Int32) throws {
        let bytes = Array(request.utf8)
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
        guard sent == bytes.count else { throw POSIXError(.EIO) }
    }
}
