import Foundation
import Hummingbird

/// A todo as the API hands it out.
public struct Todo: Codable, Equatable, Sendable, ResponseEncodable {
    /// The todo's id: the SQLite row id, or the Strata object's serial.
    public var id: Int
    public var title: String
    public var completed: Bool
    /// Where the client wants it in its list; the API does not sort by it.
    public var order: Int?
    /// When the todo was created, in whole seconds.
    public var createdAt: Date

    public init(id: Int, title: String, completed: Bool, order: Int?, createdAt: Date) {
        self.id = id
        self.title = title
        self.completed = completed
        self.order = order
        self.createdAt = createdAt
    }

    /// The longest title either store accepts (validated by the store, not the route).
    public static let maximumTitleLength = 1_000

    /// Now, in whole seconds: a whole number of seconds is exact in a `Double`, in
    /// SQLite's date text and in ISO 8601, so a todo reads back from either engine
    /// equal to what its creation returned (a fraction would come back rounded).
    static func creationDate() -> Date {
        Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }
}
