import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Batch insert settles a plain object (type and optionality checks only) in one walk
/// of its dictionary, and anything else through the ordered walk by attribute. Both
/// must give the same fields, or the same error, for every input.
@Suite("Batch insert checker")
struct BatchInsertCheckerTests {
    /// `Item` declares value rules (a length, a minimum), `Plain` none: most of its
    /// objects take the one-walk path.
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Item") {
                Attribute("name", .string)
                Attribute("count", .int64, default: .int(3))
                Attribute("note", .string, optional: true)
                Attribute("weight", .double, optional: true, default: .double(1.5))
                Attribute("code", .string, optional: true).length(min: 2, max: 4)
                Attribute("level", .int64, default: .int(5)).minimum(.int(0))
                Attribute("scratch", .string, optional: true, transient: true)
                Attribute("flag", .bool, default: .bool(false))
            }
            Entity("Plain") {
                Attribute("name", .string)
                Attribute("count", .int64, default: .int(3))
                Attribute("note", .string, optional: true)
                Attribute("weight", .double, optional: true, default: .double(1.5))
                Attribute("code", .string, optional: true)
                Attribute("level", .int64, default: .int(5))
                Attribute("scratch", .string, optional: true, transient: true)
                Attribute("flag", .bool, default: .bool(false))
            }
        }
    }

    static let keys = ["name", "count", "note", "weight", "code", "level", "scratch", "flag"]
    /// Misspelt keys, each given now and then.
    static let wrongKeys = ["nmae", "Count"]

    /// A value for `key`: mostly of the right type, sometimes null, of another type, or
    /// breaking a rule.
    static func value(for key: String, _ rng: inout SplitMix) -> Value {
        switch rng.next() % 40 {
        case 0: return .null
        case 1: return .bool(true)
        case 2: return .string("x")
        default: break
        }
        switch key {
        case "count", "level", "Count": return .int(Int64(rng.next() % 7) - 2)
        case "weight": return .double(Double(rng.next() % 100) / 4)
        case "flag": return .bool(rng.next() % 2 == 0)
        case "code": return .string(String(repeating: "c", count: Int(rng.next() % 6)))
        default: return .string("v\(rng.next() % 100)")
        }
    }

    @Test("the one-walk path and the ordered walk agree on random objects", arguments: ["Item", "Plain"])
    func bothPathsAgree(entityName: String) throws {
        let store = try StoreUnderTest.inMemory(model: Self.model())
        defer { try? store.close() }
        do {
            let entity = try #require(store.model.entity(named: entityName))
            let layout = try store.schema.shape(entityName).layout
            let plain = BatchInsertChecker(store: store, entity: entity, layout: layout)
            let ordered = BatchInsertChecker(store: store, entity: entity, layout: layout, plainPath: false)
            var rng = SplitMix(seed: 2026)
            var settled = 0, failed = 0
            var plainFields: [FieldValue] = [], orderedFields: [FieldValue] = []
            for index in 0..<3_000 {
                var values: [String: Value] = [:]
                for key in Self.keys where rng.next() % 3 != 0 { values[key] = Self.value(for: key, &rng) }
                for key in Self.wrongKeys where rng.next() % 20 == 0 { values[key] = .int(1) }
                if rng.next() % 2 == 0 { values["name"] = .string("n\(index)") }
                if rng.next() % 3 == 0 { values["scratch"] = nil }
                let a = Result { try plain.fill(&plainFields, values, index: index) }
                let b = Result { try ordered.fill(&orderedFields, values, index: index) }
                switch (a, b) {
                case (.success, .success):
                    #expect(plainFields == orderedFields, "\(values)")
                    settled += 1
                case let (.failure(x), .failure(y)):
                    let x = try #require(x as? StrataError), y = try #require(y as? StrataError)
                    #expect(x.code == y.code && x.context == y.context && x.message == y.message, "\(values)")
                    failed += 1
                default:
                    Issue.record("\(values): one path accepted what the other refused: \(a) / \(b)")
                }
            }
            // Both outcomes are exercised, many times each; without value rules most
            // objects are settled in one walk, with them none is.
            #expect(settled > 300 && failed > 300)
            #expect(ordered.plainCount == 0)
            if entityName == "Plain" { #expect(plain.plainCount > 300) } else { #expect(plain.plainCount == 0) }
        }
    }
}
