import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TodosApp

@Suite("Health, readiness and metrics")
struct OperationsTests {
    @Test("health and ready answer 200 while the store is open", arguments: engines)
    func healthAndReady(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.router) { client in
                try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
                try await client.execute(uri: "/ready", method: .get) { #expect($0.status == .ok) }
            }
        }
    }

    @Test("ready is 503 once the store is closed", arguments: engines)
    func notReadyWhenClosed(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let repository = try await openRepository(TestArguments(engine: engine, dataPath: directory))
            #expect(repository.readiness == .ready)
            try await closeRepository(repository)
            #expect(repository.readiness != .ready)
        }
    }

    @Test("a closed SQLite database holds its data in its own file, not in the WAL")
    func sqliteCheckpointsAtClose() async throws {
        try await withTemporaryDirectory { directory in
            let repository = try await openRepository(TestArguments(engine: .sqlite, dataPath: directory))
            for n in 0..<200 { _ = try await repository.createTodo(NewTodo(title: "todo \(n)")) }
            // Readers of the pool in use, so that one of them may be the last to close.
            _ = try await repository.todos(after: 0, limit: 10)
            try await closeRepository(repository)
            let path = directory + "/" + SQLiteRepository.fileName
            let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            #expect(wal == 0, "\(wal) bytes left in the WAL")
            // The database file alone, copied elsewhere, holds every todo.
            try await withTemporaryDirectory { copy in
                try FileManager.default.copyItem(atPath: path, toPath: copy + "/" + SQLiteRepository.fileName)
                let reopened = try await openRepository(TestArguments(engine: .sqlite, dataPath: copy))
                #expect(try await reopened.todos(after: 0, limit: 500).todos.count == 200)
                try await closeRepository(reopened)
            }
        }
    }

    @Test("metrics expose the database operation durations", arguments: engines)
    func metrics(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.router) { client in
                try await client.execute(uri: "/db", method: .get) { #expect($0.status == .ok) }
                _ = try await client.createTodo("measured")
                try await client.execute(uri: "/todos/999999", method: .get) { #expect($0.status == .notFound) }
                try await client.execute(uri: "/metrics", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
                    let text = String(buffer: response.body)
                    #expect(text.contains("# TYPE db_client_operation_duration histogram"))
                    for operation in ["world", "createTodo"] {
                        let series = #"db_client_operation_duration_count{db_system_name="\#(engine.rawValue)",db_operation_name="\#(operation)"}"#
                        #expect(text.contains(series), "missing \(series)")
                    }
                    #expect(text.contains("http_server_request_duration"))
                    // An error the API answered is counted as one, under its status.
                    let errors = text.split(separator: "\n").filter {
                        $0.hasPrefix("hb_request_errors{") && $0.contains(#"error_type="404""#) && $0.contains(#"http_route="/todos/{id}""#)
                    }
                    #expect(errors.contains { !$0.hasSuffix(" 0") }, "\(errors)")
                    #expect(!text.contains("db.client"))
                }
            }
        }
    }

    @Test("metric names are made valid for Prometheus")
    func sanitizer() {
        #expect(PrometheusMetrics.sanitized("db.client.operation.duration", allowsColon: true) == "db_client_operation_duration")
        #expect(PrometheusMetrics.sanitized("a:b-c", allowsColon: false) == "a_b_c")
        #expect(PrometheusMetrics.sanitized("a:b", allowsColon: true) == "a:b")
        #expect(PrometheusMetrics.sanitized("9lives", allowsColon: true) == "_9lives")
    }
}
