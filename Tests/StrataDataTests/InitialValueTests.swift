import Foundation
import StrataData
import Testing

/// Initial values with and without a placeholder's value: `@Model` keeps only those that
/// differ from what a read answers before anything is assigned (PropertyFacts), so both
/// kinds must read the same before insertion, after it, and from the store.
@Model final class Counter {
    var count: Int = 0
    var step: Int = 5
    var ratio: Double = 0.0
    var label: String = ""
    var title: String = "untitled"
    var enabled: Bool = false
    var visible: Bool = true
    var note: String? = nil
    var created: Date = Date(timeIntervalSince1970: 100)
    var name: String
    init(name: String) { self.name = name }
}

@Suite struct InitialValueTests {
    func expectInitial(_ counter: Counter, count: Int = 0, step: Int = 5) {
        #expect(counter.count == count && counter.step == step && counter.ratio == 0)
        #expect(counter.label == "" && counter.title == "untitled")
        #expect(!counter.enabled && counter.visible && counter.note == nil)
        #expect(counter.created == Date(timeIntervalSince1970: 100) && counter.name == "c")
    }

    @Test func initialValuesReadTheSameBeforeAndAfterInsertionAndFromTheStore() throws {
        let (container, context) = try inMemoryContainer(Counter.self)
        let counter = Counter(name: "c")
        expectInitial(counter)
        context.insert(counter)
        expectInitial(counter)
        try context.save()
        // Another context reads the store: every value was written, not left null.
        let other = ModelContext(container)
        let fetched = try #require(try other.fetch(FetchDescriptor<Counter>()).first)
        expectInitial(fetched)
        let object = try #require(fetched.managedObject)
        #expect(try object.value(forKey: "count") == .int(0))
        #expect(try object.value(forKey: "label") == .string(""))
        #expect(try object.value(forKey: "enabled") == .bool(false))
        #expect(try object.value(forKey: "step") == .int(5))
        #expect(try object.value(forKey: "note") == .null)
    }

    @Test func assignmentsInAndAfterTheInitializerWin() throws {
        let (container, context) = try inMemoryContainer(Counter.self)
        let counter = Counter(name: "c")
        counter.count = 7
        counter.step = 0
        expectInitial(counter, count: 7, step: 0)
        context.insert(counter)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Counter>()).first)
        expectInitial(fetched, count: 7, step: 0)
    }
}
