import Hummingbird

/// One page of `GET /todos`: todos in ascending id order, and the cursor for the next
/// page (`after=next`) when this one was full.
public struct TodoPage: Codable, Sendable, ResponseEncodable {
    public var todos: [Todo]
    /// The last id of this page when it held `limit` todos; nil on the last page.
    public var next: Int?

    public init(todos: [Todo], limit: Int) {
        self.todos = todos
        self.next = todos.count == limit ? todos.last?.id : nil
    }

    /// Writes `"next": null` on the last page rather than leaving the key out, so a
    /// client can tell the end from a response it misread.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(todos, forKey: .todos)
        try container.encode(next, forKey: .next)
    }
}
