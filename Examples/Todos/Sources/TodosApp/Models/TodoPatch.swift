/// The body of `PATCH /todos/:id`: the fields to change; absent ones stay as they are.
///
/// As in a JSON merge patch, `"order": null` clears the order. `title` and
/// `completed` cannot be cleared: null for either makes the body invalid (400).
public struct TodoPatch: Codable, Sendable {
    public var title: String?
    public var completed: Bool?
    /// nil leaves the order as it is; `.some(nil)` clears it.
    public var order: Int??

    public init(title: String? = nil, completed: Bool? = nil, order: Int?? = nil) {
        self.title = title
        self.completed = completed
        self.order = order
    }

    /// Whether the patch changes nothing (an empty object or only unknown keys): the
    /// route answers 400 rather than a silent no-op.
    public var isEmpty: Bool { title == nil && completed == nil && order == nil }

    private enum CodingKeys: String, CodingKey {
        case title, completed, order
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // `decodeIfPresent` reads null as absent; a present null is refused here so
        // that `{"title": null}` is not a silent no-op.
        title = try container.contains(.title) ? container.decode(String.self, forKey: .title) : nil
        completed = try container.contains(.completed) ? container.decode(Bool.self, forKey: .completed) : nil
        if container.contains(.order) {
            order = .some(try container.decodeNil(forKey: .order) ? nil : container.decode(Int.self, forKey: .order))
        } else {
            order = nil
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(completed, forKey: .completed)
        if let order {
            try container.encode(order, forKey: .order)  // nil encodes as null
        }
    }
}
