import Hummingbird

/// One page of `GET /todos`: todos in ascending id order, and the cursor for the next
/// page (`after=next`) when there are more.
public struct TodoPage: Codable, Sendable, ResponseEncodable {
    public var todos: [Todo]
    /// The last id of this page when more todos follow it; nil on the last page.
    public var next: Int?

    public init(todos: [Todo], next: Int?) {
        self.todos = todos
        self.next = next
    }

    /// Writes `"next": null` on the last page rather than leaving the key out, so a
    /// client can tell the end from a response it misread.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(todos, forKey: .todos)
        try container.encode(next, forKey: .next)
    }
}
