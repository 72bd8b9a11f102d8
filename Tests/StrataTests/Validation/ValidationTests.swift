import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Validation at save: every failure of every object in one `.validationFailed`
/// error, each naming object, property and rule; nothing written.
@Suite struct ValidationTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Team") {
                Attribute("name", .string)
                Relationship("members", to: "Member", inverse: "team", toMany: true)
                    .count(min: 1, max: 2)
            }
            Entity("Member") {
                Attribute("name", .string)
                Attribute("age", .int16, default: .int(30))
                    .minimum(.int(18))
                    .maximum(.int(99))
                Attribute("code", .string, optional: true)
                    .length(min: 2, max: 4)
                    .pattern("[A-Z]+")
                Attribute("email", .string, optional: true, unique: true)
                Attribute("avatar", .binary, optional: true, externalStorage: true)
                    .length(max: 10_000)
                Relationship("team", to: "Team", inverse: "members", optional: false)
            }
        }
    }

    static func member(_ context: ObjectContext, _ name: String?, team: ManagedObject?) throws -> ManagedObject {
        let member = try context.insert("Member")
        if let name { try member.setValue(name, forKey: "name") }
        if let team { try member.setObject(team, forKey: "team") }
        return member
    }

    /// Failure lines of a `.validationFailed` error: "Entity/serial.property: rule: message".
    static func failures(_ error: StrataError?) -> [String] {
        (error?.context["objects"] ?? "").split(separator: "\n").map(String.init)
    }

    static func has(_ lines: [String], _ object: ManagedObject, _ property: String, _ rule: String) -> Bool {
        lines.contains { $0.hasPrefix("\(object.objectID).\(property): \(rule):") }
    }

    @Test func everyFailureIsReportedTogetherAndNothingIsWritten() throws {
        let dir = try TemporaryDirectory("validation")
        defer { dir.remove() }
        do {
            let store = try StoreUnderTest.open(at: dir.path, model: try Self.model())
            let context = store.newContext()
            let empty = try context.insert("Team")                        // name nil, no members
            let crowded = try context.insert("Team")
            try crowded.setValue("Crowded", forKey: "name")
            let noName = try Self.member(context, nil, team: crowded)   // name nil
            let young = try Self.member(context, "Young", team: crowded)
            try young.setValue(12, forKey: "age")                       // below minimum
            let old = try Self.member(context, "Old", team: crowded)     // three members: above max
            try old.setValue(120, forKey: "age")                        // above maximum
            try old.setValue("ABCDEF", forKey: "code")                  // too long
            let orphan = try Self.member(context, "Orphan", team: nil)   // team required
            try orphan.setValue("a1", forKey: "code")                   // pattern
            try orphan.setValue("x", forKey: "email")
            let twin = try Self.member(context, "Twin", team: nil)
            try twin.setValue("x", forKey: "email")                     // unique
            try twin.setValue("A", forKey: "code")                      // too short
            try twin.setValue(Data(count: 20_000), forKey: "avatar")     // binary too long

            let commits = store.statistics.commits
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .validationFailed)
            let lines = Self.failures(error)
            #expect(Self.has(lines, empty, "name", "required"))
            #expect(Self.has(lines, empty, "members", "minimumCount"))
            #expect(Self.has(lines, crowded, "members", "maximumCount"))
            #expect(Self.has(lines, noName, "name", "required"))
            #expect(Self.has(lines, young, "age", "minimum"))
            #expect(Self.has(lines, old, "age", "maximum"))
            #expect(Self.has(lines, old, "code", "maximumLength"))
            #expect(Self.has(lines, orphan, "team", "required"))
            #expect(Self.has(lines, orphan, "code", "pattern"))
            #expect(Self.has(lines, twin, "team", "required"))
            #expect(Self.has(lines, twin, "email", "unique"))
            #expect(Self.has(lines, twin, "code", "minimumLength"))
            #expect(Self.has(lines, twin, "avatar", "maximumLength"))
            #expect(lines.count == 13)
            #expect(error?.context["count"] == "13")
            #expect(context.hasChanges) // the context keeps its changes to fix
            #expect(store.statistics.blobsWritten == 0 && store.statistics.commits == commits)
            try store.close()
        }
        let store = try StoreUnderTest.open(at: dir.path, model: try Self.model())
        defer { try? store.close() }
        let context = store.newContext()
        #expect(try context.count(for: FetchRequest(entityName: "Team")) == 0)
        #expect(try context.count(for: FetchRequest(entityName: "Member")) == 0)
    }

    @Test func aWrongTypeIsRefusedWhenSetNamingEntityAndKey() throws {
        let store = try StoreUnderTest.inMemory(model: try Self.model())
        let member = try store.newContext().insert("Member")
        let error = #expect(throws: StrataError.self) { try member.setValue("old", forKey: "age") }
        #expect(error?.code == .typeMismatch)
        #expect(error?.context["entity"] == "Member" && error?.context["keyPath"] == "age")
        // Out of an Int16's range is the wrong type too.
        #expect(throws: StrataError.self) { try member.setValue(70_000, forKey: "age") }
        let unknown = #expect(throws: StrataError.self) { try member.setValue(1, forKey: "agee") }
        #expect(unknown?.code == .unknownKeyPath)
        #expect(throws: StrataError.self) { _ = try member.string("age") }
    }

    @Test func uniqueAgainstTheStoreAndAfterTheOtherObjectChanges() throws {
        let store = try StoreUnderTest.inMemory(model: try Self.model())
        let context = store.newContext()
        let team = try context.insert("Team")
        try team.setValue("T", forKey: "name")
        let first = try Self.member(context, "First", team: team)
        try first.setValue("a@x", forKey: "email")
        try context.save()

        let second = try Self.member(context, "Second", team: team)
        try second.setValue("a@x", forKey: "email")
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(Self.has(Self.failures(error), second, "email", "unique"))
        #expect(error?.context["objects"]?.contains(first.objectID.description) == true)

        // Freeing the value in the same save makes it legal.
        try first.setValue("b@x", forKey: "email")
        try context.save()
        // A deleted holder frees it too.
        let third = try Self.member(context, "Third", team: team)
        try context.delete(second)
        try third.setValue("a@x", forKey: "email")
        try context.save()
    }

    @Test func aFixedContextSavesAfterAFailure() throws {
        let store = try StoreUnderTest.inMemory(model: try Self.model())
        let context = store.newContext()
        let team = try context.insert("Team")
        #expect(throws: StrataError.self) { try context.save() }
        try team.setValue("T", forKey: "name")
        _ = try Self.member(context, "M", team: team)
        try context.save()
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Member")) == 1)
    }

    /// A batch insert checks the same rules as a save (one implementation,
    /// `AttributeCheck.brokenRules`) and reports the first an object breaks.
    @Test func batchInsertReportsTheFirstBrokenRuleWithTheSaveMessage() throws {
        let model = try ObjectModel(version: "1") {
            Entity("Badge") {
                Attribute("age", .int16, default: .int(30))
                    .minimum(.int(18))
                    .maximum(.int(99))
                Attribute("code", .string, optional: true)
                    .length(min: 2, max: 4)
                    .pattern("[A-Z]+")
            }
        }
        var options = StoreOptions()
        options.logger = .quiet
        let dir = try TemporaryDirectory("validation-batch")
        defer { dir.remove() }
        let store = try StoreUnderTest.open(at: dir.path, model: model, options: options)
        defer { try? store.close() }
        let cases: [([String: Value], String)] = [
            (["age": .int(12)], "Badge.age: int(12) is below the minimum int(18)"),
            (["age": .int(120)], "Badge.age: int(120) is above the maximum int(99)"),
            (["code": .string("A")], "Badge.code: length 1 is below 2"),
            (["code": .string("ABCDE")], "Badge.code: length 5 is above 4"),
            (["code": .string("a1")], "Badge.code: 'a1' does not match [A-Z]+"),
            // Two broken rules: the first in rule order is named.
            (["code": .string("abcdef")], "Badge.code: length 6 is above 4"),
        ]
        for (object, message) in cases {
            let error = #expect(throws: StrataError.self) { try store.batchInsert(entityName: "Badge", objects: [["code": .string("OK")], object]) }
            #expect(error?.code == .validationFailed)
            #expect(error?.message == "batch insert, object 1: \(message)")
            // The save's failure line carries the same message.
            let context = store.newContext()
            let badge = try context.insert("Badge")
            for (key, value) in object { try badge.setValue(value, forKey: key) }
            let saveError = #expect(throws: StrataError.self) { try context.save() }
            let text = message.split(separator: " ", maxSplits: 1)[1]
            #expect(Self.failures(saveError).contains { $0.hasPrefix("\(badge.objectID).") && $0.hasSuffix(": \(text)") }, "\(Self.failures(saveError))")
        }
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Badge")) == 0)
    }
}
