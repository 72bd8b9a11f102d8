import Foundation
import Strata

extension StrataRepository {
    /// The store's model: World rows (their id is the object's serial) and todos (their
    /// id is the object's serial too). The store holds the title's rule as SQLite's
    /// CHECK does on the other engine; the routes check titles first
    /// (`Todo.checkTitle`), so that both engines answer alike.
    static func makeModel() throws -> ObjectModel {
        try ObjectModel(version: "todos-1") {
            Entity("World") {
                Attribute("randomNumber", .int64)
            }
            Entity("Todo") {
                Attribute("title", .string)
                    .length(min: 1, max: Todo.maximumTitleLength)
                Attribute("completed", .bool, default: .bool(false))
                Attribute("order", .int64, optional: true)
                Attribute("createdAt", .date)
            }
        }
    }
}

extension Todo {
    /// The todo a `Todo` object holds; `id` is its serial.
    init(_ object: ManagedObject) throws {
        self.init(
            id: Int(object.objectID.serial),
            title: try object.string("title") ?? "",
            completed: try object.bool("completed") ?? false,
            order: try object.int("order"),
            createdAt: try object.date("createdAt") ?? Date(timeIntervalSince1970: 0))
    }
}
