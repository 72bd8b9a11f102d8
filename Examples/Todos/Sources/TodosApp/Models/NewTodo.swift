/// The body of `POST /todos`: a title, and optionally an order and whether the todo
/// starts completed (false when absent).
public struct NewTodo: Codable, Sendable {
    public var title: String
    public var order: Int?
    public var completed: Bool?

    public init(title: String, order: Int? = nil, completed: Bool? = nil) {
        self.title = title
        self.order = order
        self.completed = completed
    }
}
