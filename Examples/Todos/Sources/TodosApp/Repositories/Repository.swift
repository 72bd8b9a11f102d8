/// What the routes need of a store, for either engine: TechEmpower's World rows and
/// the todo list. Every method is `async` and does its store work off the cooperative
/// pool (GRDB's and Strata's own threads), so a request waiting on the disk never
/// holds a thread the HTTP server needs.
///
/// Implementations: ``StrataRepository`` and ``SQLiteRepository``. The routes above
/// them are the same code.
public protocol Repository: Sendable {
    /// The engine's name, as metrics and logs give it (`db.system.name`).
    var systemName: String { get }

    /// One World row, or nil when no row has this id.
    func world(id: Int) async throws -> World?

    /// Writes each row's `randomNumber` in one durable transaction.
    ///
    /// - Throws: a not-found error when a row does not exist; nothing is written then.
    func updateWorlds(_ rows: [World]) async throws

    /// Creates a todo; durable when this returns.
    func createTodo(_ todo: NewTodo) async throws -> Todo

    /// The todo with this id, or nil.
    func todo(id: Int) async throws -> Todo?

    /// Applies a patch; durable when this returns. Nil when no todo has this id.
    func updateTodo(id: Int, with patch: TodoPatch) async throws -> Todo?

    /// Deletes a todo; durable when this returns. False when no todo had this id.
    func deleteTodo(id: Int) async throws -> Bool

    /// At most `limit` todos with an id above `after`, in ascending id order, and the
    /// cursor for the next page when more todos follow.
    func todos(after: Int, limit: Int) async throws -> TodoPage

    /// Copies the store, as it was at one moment after the call began, to `directory`
    /// (it must not exist; its parent must) while the store goes on serving reads and
    /// writes. Every write acknowledged before the call is in the copy.
    ///
    /// - Returns: the path to open (Strata: `directory`, the store; SQLite:
    ///   `directory/Todos.sqlite`) and what the copy holds.
    func backup(into directory: String) async throws -> BackupSummary

    /// Whether the store can take writes now. Cheap and synchronous: `/ready` asks it
    /// on every probe, and it must not wait behind the writer.
    var readiness: Readiness { get }
}
