import Foundation
import StrataData
import Testing

/// A required value the store does not have — a non-optional composite that is null or
/// no longer decodes, a required to-one that is not set — never traps: the read returns
/// a placeholder, the context keeps the error, and the next save refuses.
@Suite struct MissingValueTests {
    @Test func aNonOptionalCompositeWithoutAnyPlaceholderIsRefusedBySchema() throws {
        let error = #expect(throws: StrataError.self) { _ = try Schema([Moody.self]) }
        #expect(error?.code == .invalidModel)
        #expect(error?.context["property"] == "mood")
        #expect(error?.message.contains("give it a default value") == true, "\(String(describing: error))")
        // With a default, or CaseIterable, or optional, the same enum is accepted.
        _ = try Schema([Planned.self])
    }

    @Test func aNullCompositeReadsItsPlaceholderAndSaveRefuses() throws {
        let (_, context) = try inMemoryContainer(Planned.self)
        let object = try context.objectContext.insert("Planned")   // untyped: no values at all
        let planned = try context.model(for: object, as: Planned.self)
        #expect(planned.phase == .start, "a CaseIterable enum reads its first case")
        #expect(planned.span == Span(from: 0, to: 0, label: "", tags: [], note: nil), "a struct reads its zero value")
        #expect(planned.mood == .busy, "the insert stored the declared default")
        #expect(context.accessErrors.count == 2, "phase and span are null")
        #expect(context.accessErrors.allSatisfy { $0.code == .typeMismatch })
        try object.setValue(.composite(Data("\"sleepy\"".utf8)), forKey: "mood")
        #expect(planned.mood == .busy, "a value that no longer decodes reads the declared default")
        #expect(context.accessErrors.count == 3)
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .typeMismatch)
        #expect(error?.context["moreAccessErrors"] == "2")
        // The store's own validation refuses the null too, and nothing was written.
        let untypedSave = #expect(throws: StrataError.self) { try context.objectContext.save() }
        #expect(untypedSave?.code == .validationFailed)
        context.rollback()
        #expect(try context.fetchCount(FetchDescriptor<Planned>()) == 0)
    }

    @Test func aCompositeOfAnotherShapeReadsItsPlaceholder() throws {
        let (_, context) = try inMemoryContainer(Planned.self)
        let planned = Planned(phase: .end, span: Span(from: 1, to: 2, label: "x", tags: ["t"], note: "n"))
        context.insert(planned)
        try context.save()
        #expect(planned.span.label == "x" && planned.phase == .end, "values set by the initializer are stored")
        try planned.managedObject?.setValue(.composite(Data("{\"other\":true}".utf8)), forKey: "span")
        try planned.managedObject?.setValue(.composite(Data("\"sideways\"".utf8)), forKey: "phase")
        #expect(planned.span == Span(from: 0, to: 0, label: "", tags: [], note: nil))
        #expect(planned.phase == .start)
        #expect(context.accessErrors.count == 2)
        #expect(throws: StrataError.self) { try context.save() }
    }

    @Test func anUnsetRequiredToOneReadsADetachedPlaceholder() throws {
        let (_, context) = try inMemoryContainer(Desk.self, Owner.self)
        let object = try context.objectContext.insert("Desk")
        try object.setValue("bare", forKey: "name")
        let desk = try context.model(for: object, as: Desk.self)
        let owner = desk.owner
        #expect(owner.modelContext == nil, "a placeholder, not inserted")
        #expect(owner.name == "")
        #expect(owner.desks.isEmpty)
        let recorded = try #require(context.accessErrors.first)
        #expect(recorded.code == .validationFailed)
        #expect(recorded.context["property"] == "owner")
        #expect(recorded.message.contains("required relationship"))
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .validationFailed)
        #expect(try context.fetchCount(FetchDescriptor<Desk>(predicate: #Predicate { $0.name == "bare" })) == 1, "still pending, not saved")
        context.rollback()
        #expect(try context.fetchCount(FetchDescriptor<Desk>()) == 0)
    }

    @Test func aRequiredToOneNullifiedByADeleteReadsAPlaceholderAndSaveRefuses() throws {
        let (_, context) = try inMemoryContainer(Desk.self, Owner.self)
        let ada = Owner(name: "Ada")
        let desk = Desk(name: "window", owner: ada)
        context.insert(desk)
        try context.save()
        #expect(desk.owner === ada)
        context.delete(ada)                       // nullify: the desk loses its owner
        #expect(desk.owner.modelContext == nil)   // read: a placeholder, no trap
        #expect(context.accessErrors.map(\.code) == [.validationFailed])
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .validationFailed)
        context.rollback()
        #expect(desk.owner === ada, "after rollback the owner is back")
        #expect(context.accessErrors.isEmpty)
    }
}

/// Not CaseIterable, no default: no placeholder.
enum Mood: String, Codable { case calm, busy }

/// CaseIterable: its first case is the placeholder.
enum Phase: String, Codable, CaseIterable { case start, end }

struct Span: Codable, Equatable {
    var from: Int
    var to: Int
    var label: String
    var tags: [String]
    var note: String?
}

@Model final class Moody {
    var mood: Mood
    init(mood: Mood) { self.mood = mood }
}

@Model final class Planned {
    var phase: Phase
    var span: Span
    var mood: Mood = Mood.busy
    init(phase: Phase, span: Span) { self.phase = phase; self.span = span }
}

@Model final class Desk {
    var name: String
    var owner: Owner
    init(name: String, owner: Owner) { self.name = name; self.owner = owner }
}

@Model final class Owner {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \Desk.owner) var desks: [Desk] = []
    init(name: String) { self.name = name }
}
