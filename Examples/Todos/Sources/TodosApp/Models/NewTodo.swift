/// The body of `POST /todos`.
public struct NewTodo: Codable, Sendable {
    public var title: String
    public var order: Int?

    public init(title: String, order: Int? = nil) {
        self.title = title
        self.order = order
    }
}
