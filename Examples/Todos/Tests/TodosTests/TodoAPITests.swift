import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TodosApp

@Suite("Todo API")
struct TodoAPITests {
    @Test("a todo may be created completed; a cursor is written as an id is", arguments: engines)
    func createdCompletedAndStrictCursor(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.router) { client in
                let body = try jsonBody(NewTodo(title: "done already", completed: true))
                let created = try await client.execute(uri: "/todos", method: .post, headers: jsonHeaders, body: body) { response in
                    try #require(response.status == .created)
                    return try response.decoded(as: Todo.self)
                }
                #expect(created.completed)
                try await client.execute(uri: "/todos/\(created.id)", method: .get) { response in
                    let read = try response.decoded(as: Todo.self)
                    #expect(read.completed)
                }
                for cursor in ["+0", "00", "0.0"] {
                    try await client.execute(uri: "/todos?after=\(cursor)", method: .get) { response in
                        #expect(response.status == .badRequest, "after=\(cursor)")
                        #expect(response.errorCode == "badRequest")
                    }
                }
            }
        }
    }

    /// A body that breaks HTTP/1.1 while it is read (a chunk size that is not a number)
    /// is the client's fault: 400, not 500, and nothing is stored.
    @Test("a malformed chunked body is 400", arguments: engines)
    func malformedChunkedBody(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.live) { client in
                let port = try #require(client.port)
                let answer = try RawSocket.exchange(port: port, "POST /todos HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n")
                #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(200))")
                #expect(answer.contains(#""error":"badRequest""#), "\(answer)")
                #expect(try await client.allTodos().isEmpty)
            }
        }
    }

    @Test("create, read, patch, list and delete", arguments: engines, Transport.allCases)
    func crud(engine: Engine, transport: Transport) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(transport.setup) { client in
                let created = try await client.createTodo("write the example", order: 3)
                #expect(created.id > 0)
                #expect(created.title == "write the example")
                #expect(created.completed == false)
                #expect(created.order == 3)

                try await client.execute(uri: "/todos/\(created.id)", method: .get) { response in
                    #expect(response.status == .ok)
                    let read = try response.decoded(as: Todo.self)
                    #expect(read == created)
                }

                let patch = try jsonBody(TodoPatch(completed: true))
                try await client.execute(uri: "/todos/\(created.id)", method: .patch, headers: jsonHeaders, body: patch) { response in
                    #expect(response.status == .ok)
                    let patched = try response.decoded(as: Todo.self)
                    #expect(patched.completed == true)
                    #expect(patched.title == created.title)
                    #expect(patched.createdAt == created.createdAt)
                }

                let second = try await client.createTodo("review it")
                #expect(second.id > created.id)
                #expect(try await client.allTodos().map(\.id) == [created.id, second.id])

                try await client.execute(uri: "/todos/\(created.id)", method: .delete) { response in
                    #expect(response.status == .noContent)
                }
                try await client.execute(uri: "/todos/\(created.id)", method: .get) { response in
                    #expect(response.status == .notFound)
                    #expect(response.errorCode == "notFound")
                }
                try await client.execute(uri: "/todos/\(created.id)", method: .delete) { response in
                    #expect(response.status == .notFound)
                }
                try await client.execute(uri: "/todos/\(created.id)", method: .patch, headers: jsonHeaders, body: patch) { response in
                    #expect(response.status == .notFound)
                }
                #expect(try await client.allTodos().map(\.id) == [second.id])
            }
        }
    }

    @Test("malformed bodies, ids and queries are 400 and change nothing", arguments: engines)
    func malformedRequests(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.router) { client in
                let todo = try await client.createTodo("keep me")
                let badBodies = ["", "{", "not json", #"{"title": 5}"#, "{}", #"{"title": null}"#, "[]"]
                for body in badBodies {
                    try await client.execute(uri: "/todos", method: .post, headers: jsonHeaders, body: ByteBuffer(string: body)) { response in
                        #expect(response.status == .badRequest, "POST body \(body)")
                        #expect(response.errorCode == "badRequest")
                    }
                    try await client.execute(uri: "/todos/\(todo.id)", method: .patch, headers: jsonHeaders, body: ByteBuffer(string: body)) { response in
                        #expect(response.status == .badRequest, "PATCH body \(body)")
                    }
                }
                try await client.execute(uri: "/todos/\(todo.id)", method: .patch, headers: jsonHeaders,
                                         body: ByteBuffer(string: #"{"completed": "yes"}"#)) { response in
                    #expect(response.status == .badRequest)
                }
                for id in ["abc", "1.5", "0x10", "99999999999999999999999"] {
                    for method in [HTTPRequest.Method.get, .delete] {
                        try await client.execute(uri: "/todos/\(id)", method: method) { response in
                            #expect(response.status == .badRequest, "\(method) /todos/\(id)")
                        }
                    }
                    try await client.execute(uri: "/todos/\(id)", method: .patch, headers: jsonHeaders,
                                             body: try jsonBody(TodoPatch(completed: true))) { response in
                        #expect(response.status == .badRequest, "PATCH /todos/\(id)")
                    }
                }
                for query in ["after=x", "limit=ten", "after=1.5"] {
                    try await client.execute(uri: "/todos?\(query)", method: .get) { response in
                        #expect(response.status == .badRequest, "GET /todos?\(query)")
                    }
                }
                // Well formed, but not a title either engine keeps as it is: too short, too
                // long in Unicode scalars (what SQLite counts; 600 flags are 1,200 of
                // them), or holding a NUL (where SQLite would cut it).
                let badTitles = ["", String(repeating: "x", count: Todo.maximumTitleLength + 1), String(repeating: "🇺🇸", count: 600),
                                 "a\u{0}b", "\u{0}x"]
                for title in badTitles {
                    try await client.execute(uri: "/todos", method: .post, headers: jsonHeaders, body: try jsonBody(NewTodo(title: title))) { response in
                        #expect(response.status == .unprocessableContent, "title of \(title.unicodeScalars.count) scalars")
                        #expect(response.errorCode == "validationFailed")
                    }
                    try await client.execute(uri: "/todos/\(todo.id)", method: .patch, headers: jsonHeaders, body: try jsonBody(TodoPatch(title: title))) { response in
                        #expect(response.status == .unprocessableContent, "patched title of \(title.unicodeScalars.count) scalars")
                    }
                }
                // A title of a thousand scalars in fewer characters is kept whole on both.
                let accented = String(repeating: "e\u{301}", count: Todo.maximumTitleLength / 2)
                let kept = try await client.createTodo(accented)
                let read = try await client.execute(uri: "/todos/\(kept.id)", method: .get) { try $0.decoded(as: Todo.self) }
                #expect(read.title == accented)
                try await client.execute(uri: "/todos/\(kept.id)", method: .delete) { #expect($0.status == .noContent) }
                // Ids no todo can have are not found, not malformed.
                for id in ["0", "-1", "281474976710656"] {
                    try await client.execute(uri: "/todos/\(id)", method: .get) { response in
                        #expect(response.status == .notFound, "GET /todos/\(id)")
                    }
                }
                #expect(try await client.allTodos() == [todo])
            }
        }
    }

    @Test("pages by id, with a cursor and a clamped limit", arguments: engines)
    func paging(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.router) { client in
                var ids: [Int] = []
                for n in 1...7 { ids.append(try await client.createTodo("todo \(n)").id) }
                try await client.execute(uri: "/todos/\(ids[3])", method: .delete) { #expect($0.status == .noContent) }
                ids.remove(at: 3)

                #expect(try await client.allTodos(pageSize: 2).map(\.id) == ids)
                try await client.execute(uri: "/todos?after=\(ids[1])&limit=3", method: .get) { response in
                    let page = try response.decoded(as: TodoPage.self)
                    #expect(page.todos.map(\.id) == Array(ids[2..<5]))
                    #expect(page.next == ids[4])
                }
                try await client.execute(uri: "/todos?limit=0", method: .get) { response in
                    let page = try response.decoded(as: TodoPage.self)
                    #expect(page.todos.map(\.id) == [ids[0]])
                }
                try await client.execute(uri: "/todos?limit=100000", method: .get) { response in
                    let page = try response.decoded(as: TodoPage.self)
                    #expect(page.todos.map(\.id) == ids)
                    #expect(page.next == nil)
                }
                try await client.execute(uri: "/todos?after=\(ids.last!)", method: .get) { response in
                    let page = try response.decoded(as: TodoPage.self)
                    #expect(page.todos.isEmpty)
                }
                try await client.execute(uri: "/todos?after=281474976710656", method: .get) { response in
                    let page = try response.decoded(as: TodoPage.self)
                    #expect(page.todos.isEmpty)
                }
            }
        }
    }

    @Test("\"order\": null in a patch clears the order; a null title or completed is 400", arguments: engines)
    func clearingTheOrder(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.router) { client in
                let todo = try await client.createTodo("ordered", order: 7)
                try await client.execute(uri: "/todos/\(todo.id)", method: .patch, headers: jsonHeaders,
                                         body: ByteBuffer(string: #"{"completed": true}"#)) { response in
                    let patched = try response.decoded(as: Todo.self)
                    #expect(patched.order == 7, "an absent order stays")
                }
                try await client.execute(uri: "/todos/\(todo.id)", method: .patch, headers: jsonHeaders,
                                         body: ByteBuffer(string: #"{"order": null}"#)) { response in
                    #expect(response.status == .ok)
                    let patched = try response.decoded(as: Todo.self)
                    #expect(patched.order == nil)
                }
                let read = try await client.execute(uri: "/todos/\(todo.id)", method: .get) { try $0.decoded(as: Todo.self) }
                #expect(read.order == nil)
                #expect(read.completed)
                for body in [#"{"title": null, "order": 1}"#, #"{"completed": null}"#] {
                    try await client.execute(uri: "/todos/\(todo.id)", method: .patch, headers: jsonHeaders, body: ByteBuffer(string: body)) { response in
                        #expect(response.status == .badRequest, "PATCH body \(body)")
                    }
                }
                #expect(try await client.allTodos().map(\.order) == [nil])
            }
        }
    }

    @Test("a method a route does not take is 405 with the methods it does take", arguments: engines)
    func methodNotAllowed(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.router) { client in
                let todo = try await client.createTodo("stay")
                let refused: [(String, HTTPRequest.Method, String)] = [
                    ("/todos", .put, "GET, POST, HEAD"), ("/todos", .delete, "GET, POST, HEAD"), ("/todos", .patch, "GET, POST, HEAD"),
                    ("/todos/\(todo.id)", .put, "GET, PATCH, DELETE, HEAD"), ("/todos/\(todo.id)", .post, "GET, PATCH, DELETE, HEAD"),
                    ("/health", .post, "GET, HEAD"), ("/db", .delete, "GET, HEAD"),
                ]
                for (uri, method, allowed) in refused {
                    try await client.execute(uri: uri, method: method, headers: jsonHeaders, body: ByteBuffer(string: "{}")) { response in
                        #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                        #expect(response.errorCode == "methodNotAllowed")
                        #expect(response.headers[.allow] == allowed, "\(method) \(uri)")
                    }
                }
                try await client.execute(uri: "/nothing/here", method: .get) { #expect($0.status == .notFound) }
                #expect(try await client.allTodos() == [todo])
            }
        }
    }

    @Test("ids are whole numbers written as such, percent-encoded or not; HEAD answers where GET does", arguments: engines)
    func idsAndHead(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.router) { client in
                let todo = try await client.createTodo("first")
                for id in ["+\(todo.id)", "000\(todo.id)", "\(todo.id).0", " \(todo.id)", "%20\(todo.id)"] {
                    try await client.execute(uri: "/todos/\(id)", method: .get) { response in
                        #expect(response.status == .badRequest, "GET /todos/\(id)")
                        #expect(response.errorCode == "badRequest")
                    }
                }
                let encoded = String(todo.id).unicodeScalars.map { "%3\($0)" }.joined()
                try await client.execute(uri: "/todos/\(encoded)", method: .get) { response in
                    #expect(response.status == .ok, "GET /todos/\(encoded)")
                }
                for uri in ["/todos/\(todo.id)", "/todos", "/health"] {
                    try await client.execute(uri: uri, method: .head) { response in
                        #expect(response.status == .ok, "HEAD \(uri)")
                        #expect(response.body.readableBytes == 0)
                    }
                }
            }
        }
    }

    @Test("a body over the upload limit is 413 and changes nothing", arguments: engines)
    func bodyTooLarge(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.router) { client in
                let todo = try await client.createTodo("kept")
                let huge = ByteBuffer(string: #"{"title": ""# + String(repeating: "a", count: 3 << 20) + #""}"#)
                try await client.execute(uri: "/todos", method: .post, headers: jsonHeaders, body: huge) { response in
                    #expect(response.status == .contentTooLarge)
                    #expect(response.errorCode == "contentTooLarge")
                }
                try await client.execute(uri: "/todos/\(todo.id)", method: .patch, headers: jsonHeaders, body: huge) { response in
                    #expect(response.status == .contentTooLarge)
                }
                #expect(try await client.allTodos() == [todo])
            }
        }
    }

    @Test("the last page has no next cursor, even when it is full", arguments: engines)
    func fullLastPage(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.router) { client in
                var ids: [Int] = []
                for n in 1...4 { ids.append(try await client.createTodo("todo \(n)").id) }
                try await client.execute(uri: "/todos?limit=2", method: .get) { response in
                    let page = try response.decoded(as: TodoPage.self)
                    #expect(page.todos.map(\.id) == Array(ids[0..<2]))
                    #expect(page.next == ids[1])
                }
                try await client.execute(uri: "/todos?after=\(ids[1])&limit=2", method: .get) { response in
                    let page = try response.decoded(as: TodoPage.self)
                    #expect(page.todos.map(\.id) == Array(ids[2..<4]))
                    #expect(page.next == nil)
                }
                try await client.execute(uri: "/todos?limit=4", method: .get) { response in
                    let page = try response.decoded(as: TodoPage.self)
                    #expect(page.todos.count == 4)
                    #expect(page.next == nil)
                }
            }
        }
    }
}
