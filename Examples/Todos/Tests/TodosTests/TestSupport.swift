import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import TodosApp

/// The options a test builds its application with: loopback, a free port, and its own
/// data directory.
struct TestArguments: AppArguments {
    var hostname = "127.0.0.1"
    var port = 0
    var engine: Engine
    var dataPath: String
    var logLevel: Logger.Level? = .warning
    var backupDirectory: String? = nil
    var storeLocation: String? = nil
    var maxPendingWrites: Int? = nil
}

/// Every engine: each test runs its body against both.
let engines = Engine.allCases

/// How a test reaches the application: straight into the router, or through a live
/// server on loopback.
enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case router
    case live

    var setup: TestingSetup {
        switch self {
        case .router: .router
        case .live: .live
        }
    }

    var testDescription: String { rawValue }
}

/// Runs `body` with a new, empty directory, removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("TodosTests-\(UUID().uuidString)", isDirectory: true).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

let jsonDecoder = APIJSON.decoder()
let jsonEncoder = APIJSON.encoder()

extension TestResponse {
    /// The body decoded as the API's JSON.
    func decoded<T: Decodable>(as type: T.Type = T.self) throws -> T {
        try jsonDecoder.decode(T.self, from: Data(buffer: body))
    }

    /// The `error` code of an error body.
    var errorCode: String? {
        (try? jsonDecoder.decode(ErrorBody.self, from: Data(buffer: body)))?.error
    }
}

struct ErrorBody: Decodable {
    var error: String
    var message: String
}

/// A JSON body for a request.
func jsonBody(_ value: some Encodable) throws -> ByteBuffer {
    ByteBuffer(bytes: try jsonEncoder.encode(value))
}

let jsonHeaders: HTTPFields = [.contentType: "application/json"]

extension TestClientProtocol {
    /// `POST /todos` with `title`; expects 201 and returns the todo.
    func createTodo(_ title: String, order: Int? = nil) async throws -> Todo {
        try await execute(uri: "/todos", method: .post, headers: jsonHeaders, body: try jsonBody(NewTodo(title: title, order: order))) { response in
            try #require(response.status == .created, "POST /todos answered \(response.status)")
            return try response.decoded(as: Todo.self)
        }
    }

    /// Every todo, through the pages of `GET /todos`.
    func allTodos(pageSize: Int = 500) async throws -> [Todo] {
        var todos: [Todo] = []
        var after = 0
        while true {
            let page = try await execute(uri: "/todos?after=\(after)&limit=\(pageSize)", method: .get) { response in
                try #require(response.status == .ok)
                return try response.decoded(as: TodoPage.self)
            }
            todos += page.todos
            guard let next = page.next else { return todos }
            after = next
        }
    }
}

/// The engine's repository over `arguments.dataPath`, without an application around it.
func openRepository(_ arguments: TestArguments) async throws -> any Repository {
    var logger = Logger(label: "TodosTests")
    logger.logLevel = .warning
    switch arguments.engine {
    case .strata:
                return try await StrataRepository.open(directory: arguments.dataPath, logger: logger)
            case .sqlite:
        return try await SQLiteRepository.open(directory: arguments.dataPath, logger: logger)
    }
}

/// Closes what ``openRepository(_:)`` opened.
func closeRepository(_ repository: any Repository) async throws {
    switch repository {
        case let strata as StrataRepository:
        try await strata.store.close()
        case let sqlite as SQLiteRepository:
        try sqlite.close()
    default:
        Issue.record("unknown repository \(type(of: repository))")
    }
}
