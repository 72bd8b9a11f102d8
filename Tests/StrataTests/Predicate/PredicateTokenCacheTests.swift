import Testing
import StrataLog
@testable import Strata

/// Formats are tokenized once and their tokens kept (`PredicateTokenCache`): the same
/// tokens as tokenizing afresh, arguments bound anew on every parse, errors raised on
/// every parse, and the cache bounded in count and in the length of what it keeps.
@Suite struct PredicateTokenCacheTests {
    static let formats = [
        "departmentID == %@", "name BEGINSWITH[cd] 'Ad' AND salary > 10", "%K IN %@", "ANY tags.name == $tag",
        "a\r\n==\tb", "größe >= 1.5e3 || #order != nil", "@count > 2", "name MATCHES '\\\\d+'", "",
    ]

    @Test func cachedTokensAreTheFormatsTokens() throws {
        let cache = PredicateTokenCache()
        for round in 0..<2 {
            for format in Self.formats {
                #expect(try cache.tokens(of: format) == PredicateLexer.tokenize(format), "round \(round): \(format)")
            }
        }
        #expect(cache.count == Self.formats.count)
    }

    @Test func argumentsAreBoundOnEveryParse() throws {
        for id in [Int64(3), 7, 3] {
            let predicate = try Predicate(format: "departmentID == %@", id)
            #expect(predicate == .comparison(PredicateComparison(.keyPath("departmentID"), .equalTo, .constant(.int(id)))))
        }
        #expect(throws: StrataError.self) { try Predicate(format: "departmentID == %@") }
    }

    @Test func aFormatThatDoesNotTokenizeFailsEachTime() {
        let cache = PredicateTokenCache()
        for _ in 0..<2 {
            #expect(throws: StrataError.self) { try cache.tokens(of: "name == 'unterminated") }
        }
        #expect(cache.count == 0)
    }

    @Test func theCacheIsBounded() throws {
        let cache = PredicateTokenCache()
        for i in 0..<600 { _ = try cache.tokens(of: "a == \(i)") }
        #expect(cache.count <= 256)
        #expect(cache.count > 0)
        let long = "a == 1" + String(repeating: " OR a == 1", count: 200)
        let before = cache.count
        #expect(try cache.tokens(of: long) == PredicateLexer.tokenize(long))
        #expect(cache.count == before)
    }
}
