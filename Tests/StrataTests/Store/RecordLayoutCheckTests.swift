import Foundation
import Testing
import StrataLog
@testable import Strata

/// An object record is held to its layout wherever it is read: a field missing or
/// extra, a value of another kind than its attribute's, bytes after the last field or
/// text that is not UTF-8 is `.corrupt` — through a fault, a fetch that judges a few
/// fields in place (integer tests included), and a dictionary fetch — never a value
/// read as null or as another type, never a row silently left out.
@Suite struct RecordLayoutCheckTests {
    static let model: ObjectModel? = try? ObjectModel(version: "layout-check") {
        Entity("Employee") {
            Attribute("name", .string)
            Attribute("salary", .double)
            Attribute("level", .int64)
        }
    }

    /// `version 2 · layout 1 · count · fields` (docs/FORMAT.md §11.1).
    static func record(_ fields: [[UInt8]], count: Int? = nil, trailing: [UInt8] = []) -> [UInt8] {
        [2, 1, UInt8(count ?? fields.count)] + fields.flatMap { $0 } + trailing
    }

    static func string(_ text: [UInt8]) -> [UInt8] { [1, 5, UInt8(text.count)] + text }
    static func double(_ value: Double) -> [UInt8] { [1, 3] + withUnsafeBytes(of: value.bitPattern.littleEndian, Array.init) }
    static func int(_ value: Int64) -> [UInt8] { [1, 2, UInt8((value << 1) ^ (value >> 63))] }

    static let damaged: [(String, [UInt8])] = [
        ("a field missing", record([string(Array("Ada".utf8)), double(10)])),
        ("a field too many", record([string(Array("Ada".utf8)), double(10), int(5), int(6)])),
        ("a double where the string is", record([double(1.5), double(10), int(5)])),
        ("a string where the integer is", record([string(Array("Ada".utf8)), double(10), string(Array("5".utf8))])),
        ("a reference where the double is", record([string(Array("Ada".utf8)), [3, 1, 0, 0, 0, 0, 0, 1, 0], int(5)])),
        ("bytes after the last field", record([string(Array("Ada".utf8)), double(10), int(5)], trailing: [0])),
    ]

    /// Text that is not UTF-8 is refused where it is read: a fault of it, a dictionary
    /// fetch of it. A fetch that judges other fields passes over its bytes (their
    /// structure held to the layout), as it passes over every value it does not read.
    @Test func textThatIsNotUTF8IsCorruptWhereItIsRead() throws {
        let (store, id) = try Self.store(damagingFirstWith: Self.record([Self.string([0x41, 0xFF, 0x42]), Self.double(10), Self.int(5)]))
        defer { try? store.close() }
        let context = store.newContext()
        Self.expectCorrupt("not UTF-8", "a fault") { _ = try context.object(with: id).value(forKey: "name") }
        Self.expectCorrupt("not UTF-8", "a dictionary fetch of the text") {
            var request = FetchRequest(entityName: "Employee")
            request.propertiesToFetch = ["name"]
            _ = try store.newContext().fetchDictionaries(request)
        }
    }

    /// A store of three employees (levels 5, 6, 7), the first one's record replaced by
    /// `value` under its own key and sequence order (a newer version, as damage to
    /// the current one would read).
    static func store(damagingFirstWith value: [UInt8]) throws -> (ObjectStore, ObjectID) {
        let model = try #require(Self.model)
        var options = StoreOptions()
        options.fileSystem = InMemoryFileSystem()
        options.logger = .quiet
        let store = try ObjectStore(at: "/store", model: model, options: options)
        let context = store.newContext()
        var ids: [ObjectID] = []
        for level in 5...7 {
            let employee = try context.insert("Employee")
            try employee.setValue("E\(level)", forKey: "name")
            try employee.setValue(Double(level) * 10, forKey: "salary")
            try employee.setValue(.int(Int64(level)), forKey: "level")
            ids.append(employee.objectID)
        }
        try context.save()
        var batch = WriteBatch()
        batch.put(try context.object(with: ids[0]).recordKey, value: value)
        try store.records.commit(batch)
        return (store, ids[0])
    }

    static func expectCorrupt(_ label: String, _ what: String, _ body: () throws -> Void) {
        let error = #expect(throws: StrataError.self, "\(label): \(what)") { try body() }
        #expect(error?.code == .corrupt, "\(label): \(what): \(String(describing: error))")
    }

    @Test(arguments: damaged)
    func aRecordThatDoesNotHoldToItsLayoutIsCorruptOnEveryPath(label: String, value: [UInt8]) throws {
        let (store, id) = try Self.store(damagingFirstWith: value)
        defer { try? store.close() }
        let context = store.newContext()
        Self.expectCorrupt(label, "a fault") {
            let object = try context.object(with: id)
            for key in ["name", "salary", "level"] { _ = try object.value(forKey: key) }
        }
        Self.expectCorrupt(label, "a fetch judging the integer in place") {
            _ = try store.newContext().fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "level >= 0")))
        }
        Self.expectCorrupt(label, "a fetch judging the double") {
            _ = try store.newContext().fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "salary > 0")))
        }
        Self.expectCorrupt(label, "a fetch that no field of the damage matches") {
            _ = try store.newContext().fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "level == 7")))
        }
        Self.expectCorrupt(label, "a dictionary fetch") {
            var request = FetchRequest(entityName: "Employee")
            request.propertiesToFetch = ["level"]
            _ = try store.newContext().fetchDictionaries(request)
        }
    }

    @Test func theSameBytesHeldToTheirLayoutRead() throws {
        let (store, id) = try Self.store(damagingFirstWith: Self.record([Self.string(Array("Ada".utf8)), Self.double(10), Self.int(5)]))
        defer { try? store.close() }
        let context = store.newContext()
        #expect(try context.object(with: id).value(forKey: "name") == .string("Ada"))
        #expect(try context.fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "level >= 0"))).count == 3)
        #expect(try context.fetch(FetchRequest(entityName: "Employee", predicate: try Predicate(format: "salary > 0"))).count == 3)
    }
}
