import Testing
@testable import Strata
import StrataLog

/// Nesting is bounded, so that deep input (100,000 `(`) cannot overflow the parser's
/// stack and kill the process: every form of nesting past
/// `Predicate.maximumNestingDepth` is a `.limitExceeded` error that names the limit and
/// where it was passed.
@Suite("Predicate nesting limits")
struct PredicateLimitTests {
    private static func parenthesised(_ depth: Int) -> String {
        String(repeating: "(", count: depth) + "age == 1" + String(repeating: ")", count: depth)
    }

    private static func expectLimit(_ body: () throws -> Void, position: Int?) {
        do {
            try body()
            Issue.record("expected limitExceeded")
        } catch let error as StrataError {
            #expect(error.code == .limitExceeded, "\(error)")
            #expect(error.context["limit"] == "predicateNestingDepth")
            #expect(error.context["position"] == position.map(String.init))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(arguments: [Predicate.maximumNestingDepth + 1, 10_000, 100_000])
    func deepParenthesesAreRefused(depth: Int) {
        // The limit is passed at the (maximum + 1)th parenthesis, at that character offset.
        Self.expectLimit({ _ = try Predicate(format: Self.parenthesised(depth)) }, position: Predicate.maximumNestingDepth)
    }

    @Test func nestingAtTheLimitParsesAndEvaluates() throws {
        let predicate = try Predicate(format: Self.parenthesised(Predicate.maximumNestingDepth))
        #expect(predicate == (.key("age") == 1))
        let nots = try Predicate(format: String(repeating: "NOT ", count: Predicate.maximumNestingDepth) + "age == 1")
        // An even number of NOTs: the comparison itself.
        #expect(try nots.evaluate(with: PredicateFixtures.ann) == (try Predicate(format: "age == 1").evaluate(with: PredicateFixtures.ann)))
        let (entity, model) = try PredicateFixtures.entity("Employee")
        try nots.validate(against: entity, in: model)
    }

    @Test func deepNotChainsAreRefused() {
        let format = String(repeating: "NOT ", count: 100_000) + "age == 1"
        Self.expectLimit({ _ = try Predicate(format: format) }, position: Predicate.maximumNestingDepth * 4)
        let bangs = String(repeating: "!", count: 100_000) + "age == 1"
        Self.expectLimit({ _ = try Predicate(format: bangs) }, position: Predicate.maximumNestingDepth)
    }

    @Test func deepListsAreRefused() {
        let format = "age IN " + String(repeating: "{", count: 100_000) + "1" + String(repeating: "}", count: 100_000)
        Self.expectLimit({ _ = try Predicate(format: format) }, position: 7 + Predicate.maximumNestingDepth)
    }

    @Test func deepGroupsOfAndOrAreRefused() {
        // Each level is a real node of the tree: "(age == 1 AND (age == 1 AND (…)))".
        let depth = 50_000
        let format = String(repeating: "(age == 1 AND ", count: depth) + "age == 1" + String(repeating: ")", count: depth)
        Self.expectLimit({ _ = try Predicate(format: format) }, position: Predicate.maximumNestingDepth * 14)
    }

    /// A predicate built in code is not parsed: validation measures it (without
    /// recursion) before anything walks it recursively.
    @Test func builtPredicatesAreMeasuredByValidation() throws {
        var predicate: Predicate = .key("age") == 1
        for _ in 0..<(Predicate.maximumNestingDepth + 5) { predicate = .not(predicate) }
        let (entity, model) = try PredicateFixtures.entity("Employee")
        Self.expectLimit({ try predicate.validate(against: entity, in: model) }, position: nil)
        var list: PredicateExpression = .constant(.int(1))
        for _ in 0..<(Predicate.maximumNestingDepth + 5) { list = .list([list]) }
        let inList: Predicate = .comparison(PredicateComparison(.keyPath("age"), .in, list))
        Self.expectLimit({ try inList.validate(against: entity, in: model) }, position: nil)
    }
}

/// Long inputs that are not nested: handled in memory proportional to them, with a
/// clear error where they do not resolve.
@Suite("Predicate long inputs")
struct PredicateLongInputTests {
    @Test func aTenMebibyteStringLiteralParsesAndEvaluates() throws {
        let long = String(repeating: "x", count: 10 << 20)
        let predicate = try Predicate(format: "name == '\(long)'")
        #expect(predicate == (.key("name") == long))
        #expect(try predicate.evaluate(with: PredicateFixtures.ann) == false)
    }

    @Test func aHundredThousandComponentKeyPathIsAClearError() throws {
        let path = Array(repeating: "department", count: 100_000).joined(separator: ".")
        let predicate = try Predicate(format: "\(path) == 1")
        let (entity, model) = try PredicateFixtures.entity("Employee")
        let error = #expect(throws: StrataError.self) { try predicate.validate(against: entity, in: model) }
        #expect(error?.code == .unknownKeyPath, "\(String(describing: error))")
        #expect(error?.context["entity"] == "Department")
        #expect((error?.message.count ?? .max) < 1_000, "the message names the component, not the whole path")
    }
}
