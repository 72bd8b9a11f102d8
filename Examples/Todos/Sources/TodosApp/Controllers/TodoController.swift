import Hummingbird

/// The todo API over any ``Repository``: create, read, patch, delete, and pages by id.
///
/// A body that does not decode or an id that is not an integer is a 400 before the
/// store is asked anything, so a malformed request changes nothing. Writes answer
/// once the store has made them durable.
struct TodoController<Store: Repository> {
    let repository: Store

    /// `limit` when the query gives none, and the most one page may hold.
    static var defaultPageSize: Int { 50 }
    static var maximumPageSize: Int { 500 }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group
            .post(use: create)
            .get(use: list)
            .get(":id", use: get)
            .patch(":id", use: update)
            .delete(":id", use: delete)
            .routes("", allowing: [.get, .post])
            .routes(":id", allowing: [.get, .patch, .delete])
    }

    @Sendable func create(request: Request, context: AppRequestContext) async throws -> EditedResponse<Todo> {
        let new = try await request.decode(as: NewTodo.self, context: context)
        try Todo.checkTitle(new.title)
        let todo = try await repository.createTodo(new)
        return EditedResponse(status: .created, headers: [.location: "/todos/\(todo.id)"], response: todo)
    }

    @Sendable func get(request: Request, context: AppRequestContext) async throws -> Todo {
        let id = try Self.id(context)
        guard let todo = try await repository.todo(id: id) else { throw APIError.notFound("todo \(id)") }
        return todo
    }

    @Sendable func update(request: Request, context: AppRequestContext) async throws -> Todo {
        let id = try Self.id(context)
        let patch = try await request.decode(as: TodoPatch.self, context: context)
        guard !patch.isEmpty else { throw APIError.badRequest("the patch names none of title, completed, order") }
        if let title = patch.title { try Todo.checkTitle(title) }
        guard let todo = try await repository.updateTodo(id: id, with: patch) else { throw APIError.notFound("todo \(id)") }
        return todo
    }

    @Sendable func delete(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let id = try Self.id(context)
        guard try await repository.deleteTodo(id: id) else { throw APIError.notFound("todo \(id)") }
        return .noContent
    }

    /// The `:id` of the path: a whole number written as one (`5`, `-1`; not `+5`,
    /// `0005` or `5.0`), percent-encoding decoded as in any other part of a URL.
    /// Anything else is a 400.
    static func id(_ context: AppRequestContext) throws -> Int {
        let raw = try context.parameters.require("id")
        guard let text = raw.removingPercentEncoding, let id = wholeNumber(text) else {
            throw APIError.badRequest("the id \(raw) is not a whole number")
        }
        return id
    }

    /// `text` as an integer written as one: `5`, `-1`; not `+5`, `0005` or `5.0`.
    static func wholeNumber(_ text: some StringProtocol) -> Int? {
        guard let value = Int(text), String(value) == text else { return nil }
        return value
    }

    /// `GET /todos?after=ID&limit=N`: `after` defaults to 0 (the first page) and is
    /// written as an id is; `limit` defaults to 50 and is clamped to 1…500; either one
    /// that is not an integer is a 400.
    @Sendable func list(request: Request, context: AppRequestContext) async throws -> TodoPage {
        let query = request.uri.queryParameters
        let after = try query["after"].map { text in
            guard let value = Self.wholeNumber(text) else { throw APIError.badRequest("after must be an integer id, written as one") }
            return value
        } ?? 0
        let limit = try query["limit"].map { text in
            guard let value = Int(text) else { throw APIError.badRequest("limit must be an integer") }
            return min(max(value, 1), Self.maximumPageSize)
        } ?? Self.defaultPageSize
        return try await repository.todos(after: max(after, 0), limit: limit)
    }
}
