import Foundation
import Strata

extension StrataRepository {
    /// The store's model: World rows (their id is the object's serial) and todos (their
    /// id is the object's serial too). Title rules are the store's, so a title too short
    /// or too long is the store's `validationFailed`, as SQLite's CHECK is on the other
    /// engine.
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
