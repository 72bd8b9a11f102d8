import Foundation
import Testing
import StrataLog
@testable import Strata

/// A layout table's `fill` is what records of older layouts read for a field they lack
/// (FORMAT.md §11.4): one that is not a value's encoding is damage, refused at open —
/// read as null, every older record would lose its default silently. (A store with
/// `strata.digest` refuses any edit first; this is a store without the digest.)
@Suite struct LayoutFillCheckTests {
    static func models() throws -> (ObjectModel, ObjectModel) {
        let v1 = try ObjectModel(version: "1") { Entity("Employee") { Attribute("name", .string) } }
        let v2 = try ObjectModel(version: "2") {
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("age", .int32, default: .int(30))
            }
        }
        return (v1, v2)
    }

    @Test(arguments: ["%%%", Data([99]).base64EncodedString(), Data([2, 60, 0]).base64EncodedString()])
    func aFillThatIsNotAValueIsCorrupt(fill: String) throws {
        let (v1, v2) = try Self.models()
        let memory = InMemoryFileSystem()
        var options = StoreOptions()
        options.fileSystem = memory
        options.logger = .quiet
        do {
            let store = try ObjectStore(at: "/store", model: v1, options: options)
            let context = store.newContext()
            try context.insert("Employee").setValue("Ada", forKey: "name")
            try context.save()
            try store.close()
        }
        var migrating = options
        migrating.migration = .inferred
        try ObjectStore(at: "/store", model: v2, options: migrating).close()
        do {
            let store = try ObjectStore(at: "/store", model: v2, options: options)
            let context = store.newContext()
            let employee = try #require(try context.fetch(FetchRequest(entityName: "Employee")).first)
            #expect(try employee.value(forKey: "age") == .int(30))
            try store.close()
        }
        do {
            let log = try LogStore.open(at: "/store", options: options.log, fileSystem: memory, logger: .quiet)
            var metadata = log.metadata
            var table = try JSONSerialization.jsonObject(with: Data(try #require(metadata["strata.layouts"]))) as? [String: Any] ?? [:]
            var entities = table["entities"] as? [String: Any] ?? [:]
            var employee = entities["Employee"] as? [String: Any] ?? [:]
            var layouts = employee["layouts"] as? [[String: Any]] ?? []
            var fields = layouts[layouts.count - 1]["fields"] as? [[String: Any]] ?? []
            let age = try #require(fields.firstIndex { $0["name"] as? String == "age" })
            #expect(fields[age]["fill"] != nil)
            fields[age]["fill"] = fill
            layouts[layouts.count - 1]["fields"] = fields
            employee["layouts"] = layouts
            entities["Employee"] = employee
            table["entities"] = entities
            metadata["strata.layouts"] = Array(try JSONSerialization.data(withJSONObject: table, options: [.sortedKeys]))
            metadata[MetadataDigest.key] = nil
            try log.setMetadata(metadata)
            try log.close()
        }
        let error = #expect(throws: StrataError.self) { _ = try ObjectStore(at: "/store", model: v2, options: options) }
        #expect(error?.code == .corrupt, "\(String(describing: error))")
    }
}
