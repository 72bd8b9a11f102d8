import Testing
@testable import Strata

@Suite("Predicate format syntax errors")
struct PredicateSyntaxErrorTests {
    /// A format, the character offset the error must name, and words of what was expected.
    struct SyntaxCase: CustomTestStringConvertible, Sendable {
        var format: String
        var position: Int
        var expected: String
        var testDescription: String { "\(format) @\(position)" }
        init(_ format: String, _ position: Int, _ expected: String) {
            self.format = format
            self.position = position
            self.expected = expected
        }
    }

    static let cases: [SyntaxCase] = [
        .init("", 0, "a key path or a value"),
        .init("age ==", 6, "a key path or a value"),
        .init("age 30", 4, "a comparison operator"),
        .init("age", 3, "a comparison operator"),
        .init("AND age == 1", 0, "a key path or a value"),
        .init("age == 1 AND", 12, "a key path or a value"),
        .init("age == 1 age", 9, "AND, OR or the end of the format"),
        .init("(age == 1", 9, "')'"),
        .init("age == 1)", 8, "AND, OR or the end of the format"),
        .init("age == 'abc", 7, "a closing ' for the string starting here"),
        .init("age == \"abc", 7, "a closing \" for the string starting here"),
        .init(#"age == 'a\q'"#, 9, "an escape"),
        .init(#"age == 'a\u12'"#, 9, "four hexadecimal digits"),
        .init("name BEGINSWITH[x] 'a'", 16, "a modifier c, d or cd"),
        .init("name BEGINSWITH[] 'a'", 16, "a modifier c, d or cd"),
        .init("name BEGINSWITH[c 'a'", 18, "']' closing the modifier"),
        .init("age IN {1, 2", 12, "',' or '}' in the list"),
        .init("age IN {1 2}", 10, "',' or '}' in the list"),
        .init("age BETWEEN {1}", 12, "two bounds {lower, upper} after BETWEEN"),
        .init("age BETWEEN {1, 2, 3}", 12, "two bounds {lower, upper} after BETWEEN"),
        .init("age == %x", 8, "'@' or 'K' after '%'"),
        .init("age == 1 ^ 2", 9, "a key path, a value or an operator"),
        .init("age == 12abc", 9, "a digit or the end of the number"),
        .init("age == 1.5e", 11, "digits of the exponent"),
        .init("age == -x", 8, "a number after '-'"),
        .init("age == $", 8, "a name after '$'"),
        .init("employees.@sum > 1", 10, "a key name or '@count' after '.'"),
        .init("employees. > 1", 11, "a key name or '@count' after '.'"),
        .init("age == 99999999999999999999", 7, "an integer within 64 bits"),
        .init("age == IN", 7, "a key path or a value"),
        .init("hired > CAST('yesterday', 'NSDate')", 13, "an ISO 8601 date"),
        .init("hired > CAST('2026-01-01T00:00:00Z', 'NSString')", 37, "'NSDate' as the type of CAST"),
        .init("hired > CAST('2026-01-01T00:00:00Z' 'NSDate')", 36, "',' in CAST"),
        .init("ANY", 3, "a key path or a value"),
        .init("NOT", 3, "a key path or a value"),
    ]

    @Test("every syntax error names its position and what was expected", arguments: cases)
    func syntaxError(_ testCase: SyntaxCase) {
        do {
            let predicate = try Predicate(format: testCase.format)
            Issue.record("parsed as \(predicate)")
        } catch let error as StrataError {
            #expect(error.code == .predicateSyntax)
            #expect(error.context["position"] == String(testCase.position), "\(error)")
            #expect(error.context["expected"]?.hasPrefix(testCase.expected) == true, "\(error)")
            #expect(error.message.contains("position \(testCase.position)"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("positions count characters, not bytes")
    func positionsCountCharacters() {
        #expect { try Predicate(format: "name == 'Zoë' +") } throws: { error in
            (error as? StrataError)?.context["position"] == "14"
        }
    }

    @Test("arguments that do not fit the format")
    func argumentMismatch() {
        #expect { try Predicate(format: "age == %@") } throws: { ($0 as? StrataError)?.code == .invalidArgument }
        #expect { try Predicate(format: "age == 1", 2) } throws: { ($0 as? StrataError)?.code == .invalidArgument }
        #expect { try Predicate(format: "%K == 1", 2) } throws: { ($0 as? StrataError)?.code == .invalidArgument }
        #expect { try Predicate(format: "%K == 1", "") } throws: { ($0 as? StrataError)?.code == .invalidArgument }
    }
}
