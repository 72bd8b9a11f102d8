/// The body of `PATCH /todos/:id`: the fields to change; absent ones stay as they are.
public struct TodoPatch: Codable, Sendable {
    public var title: String?
    public var completed: Bool?
    public var order: Int?

    public init(title: String? = nil, completed: Bool? = nil, order: Int? = nil) {
        self.title = title
        self.completed = completed
        self.order = order
    }

    /// Whether the patch changes nothing (an empty object or only unknown keys): the
    /// route answers 400 rather than a silent no-op.
    public var isEmpty: Bool { title == nil && completed == nil && order == nil }
}
