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

    /// The longest title either store accepts, in Unicode scalars.
    public static let maximumTitleLength = 1_000

    /// Checks a title the way both engines can keep it as it is: 1…1,000 Unicode
    /// scalars (what SQLite's `length()` counts; Strata's rule counts characters, which
    /// are never more) and no NUL (SQLite takes a bound string up to its first NUL).
    /// The stores hold their own rules too; this makes the two answer alike.
    static func checkTitle(_ title: String) throws {
        let scalars = title.unicodeScalars
        guard !scalars.contains("\u{0}") else {
            throw APIError(status: .unprocessableContent, code: "validationFailed", message: "a title cannot hold a NUL character")
        }
        let count = scalars.count
        guard (1...maximumTitleLength).contains(count) else {
            throw APIError(status: .unprocessableContent, code: "validationFailed",
                           message: "a title is 1 to \(maximumTitleLength) Unicode scalars long, not \(count)")
        }
    }

    /// Now, in whole seconds: a whole number of seconds is exact in a `Double`, in
    /// SQLite's date text and in ISO 8601, so a todo reads back from either engine
    /// equal to what its creation returned (a fraction would come back rounded).
    static func creationDate() -> Date {
        Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }
}
