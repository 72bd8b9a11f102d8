import Foundation
import Strata
import StrataImport
import Testing

/// The fast path of `JSONLineDecoder` gives what the reference path (JSONDecoder and
/// `ImportLine`) gives, or leaves the line to it; errors are the reference's own.
@Suite struct JSONLineDecoderTests {
    private let decoder = JSONLineDecoder(model: ImportTestModel.model)

    private func bytes(_ text: String) -> ArraySlice<UInt8> { Array(text.utf8)[...] }

    /// The oracle: when the fast path answers, the reference answers the same.
    private func agree(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let line = bytes(text)
        guard let fast = decoder.decodeFast(line) else { return }
        do {
            let reference = try decoder.decodeReference(line)
            #expect(LineSummary(fast) == LineSummary(reference), "\(text)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("fast path accepted what the reference refuses (\(error)): \(text)", sourceLocation: sourceLocation)
        }
    }

    static let plainLines = [
        #"{"@entity": "Employee", "name": "Ada", "salary": 90000}"#,
        #"{"@entity":"Employee","@id":"strata://x/Employee/1","name":"Ada","salary":90000.5}"#,
        #"  {"name": "Grace", "@entity": "Employee", "salary": -1.5e3, "@ref": "grace"}  "#,
        #"{"@entity": "Employee", "name": "Ünïcödé 😀", "age": 42, "rank": -7, "serial": 9223372036854775807, "active": true}"#,
        #"{"@entity": "Employee", "name": "esc \" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 \u0000", "bonus": "12.50"}"#,
        #"{"@entity": "Employee", "name": "d", "hired": "2024-05-01T12:00:00.25Z", "badge": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "homepage": "https://example.com/a"}"#,
        #"{"@entity": "Employee", "name": "b", "photo": {"@base64": "AAEC"}, "blob": {"@base64": "AQID"}, "ratio": 0.25}"#,
        #"{"@entity": "Employee", "name": "r", "department": {"@ref": "sales"}, "mentor": {"@id": "strata://x/Employee/3"}, "projects": [{"@ref": "p1"}, {"@id": "strata://x/Project/2"}]}"#,
        #"{"@entity": "Employee", "name": "n", "department": null, "projects": [], "hired": 1714564800, "salary": 0.0}"#,
        #"{"@entity": "Department", "name": "Sales", "@ref": "sales", "employees": [{"@ref": "ada"}]}"#,
        #"{"@entity": "Project"}"#,
        #"{"@entity": "Employee", "name": "x", "salary": -0.0, "ratio": 1e2, "bonus": 7}"#,
        #"{"@entity": "Employee", "name": "x", "salary": "NaN", "ratio": "-Infinity"}"#,
    ]

    @Test(arguments: plainLines)
    func plainLinesTakeTheFastPathAndAgree(_ text: String) throws {
        #expect(decoder.decodeFast(bytes(text)) != nil, "\(text)")
        agree(text)
    }

    static let referenceLines = [
        #"{"@entity": "Employee", "name": "x", "address": {"street": "Main", "number": 5}}"#,
        #"{"@entity": "Employee", "name": "x", "settings": [1, 2.5, {"a": null}]}"#,
        #"{"@entity": "Employee", "name": "x", "age": 5.0}"#,
        #"{"@entity": "Employee", "name": "x", "serial": 92233720368547758070}"#,
        #"{"@entity": "Employee", "name": "x", "salary": 1e400}"#,
        #"{"@entity": "Employee", "na\u006de": "x"}"#,
        #"{"@entity": "Employee", "name": "x", "name": "y"}"#,
        #"{"@entity": "Employee", "@entity": "Employee", "name": "y"}"#,
        #"{"@entity": "Thing"}"#,
        #"{"@entity": "Nope"}"#,
        #"{"name": "x"}"#,
        #"["not", "an", "object"]"#,
        #"{"@entity": "Employee", "name": }"#,
        #"{"@entity": "Employee", "name": "x"} trailing"#,
        #"{"@entity": "Employee", "name": "\ud800"}"#,
        #"{"@entity": "Employee", "name": 7}"#,
        #"{"@entity": "Employee", "name": "x", "department": "Sales"}"#,
        #"{"@entity": "Employee", "name": "x", "photo": "AAEC"}"#,
        #"{"@entity": "Employee", "name": "x", "@other": 1}"#,
        #"{"@entity": "Employee", "name": "x", "@ref": ""}"#,
        #"{"@entity": "Employee", "name": "x", "age": 40000}"#,
        #"{"@entity": "Employee", "name": "x", "salary": 01}"#,
        #"{"@entity": "Employee", "name": "tab\#tinside"}"#,
    ]

    /// Lines the fast path leaves alone are decoded or refused by the reference, with
    /// its message.
    @Test(arguments: referenceLines)
    func otherLinesGetTheReferenceAnswer(_ text: String) throws {
        #expect(decoder.decodeFast(bytes(text)) == nil, "\(text)")
        let viaDecode = Result { () throws(LineProblem) in LineSummary(try decoder.decode(bytes(text))) }
        let viaReference = Result { () throws(LineProblem) in LineSummary(try decoder.decodeReference(bytes(text))) }
        switch (viaDecode, viaReference) {
        case let (.success(a), .success(b)): #expect(a == b)
        case let (.failure(a), .failure(b)): #expect(a.description == b.description)
        default: Issue.record("decode and the reference disagree on \(text)")
        }
    }

    @Test func invalidUTF8IsLeftToTheReference() {
        var line = Array(#"{"@entity": "Employee", "name": "x"}"#.utf8)
        line[line.count - 3] = 0xFF
        #expect(decoder.decodeFast(line[...]) == nil)
        #expect(throws: LineProblem.self) { try decoder.decode(line[...]) }
    }

    @Test func deepNestingIsRefusedWithTheReferenceMessage() {
        let depth = 200
        let text = #"{"@entity": "Employee", "name": "x", "projects": "# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        #expect(decoder.decodeFast(bytes(text)) == nil)
        do {
            _ = try decoder.decode(bytes(text))
            Issue.record("expected a failure")
        } catch {
            #expect(error.description.contains("nested more than \(JSONLineCoder.maximumDepth) levels"))
        }
    }

    /// Random lines built from pieces that are mostly valid: whenever the fast path
    /// answers, the reference agrees.
    @Test func randomLinesAgree() {
        var generator = SplitMix(seed: 0x5EED)
        let keys = ["@entity", "@ref", "@id", "name", "salary", "ratio", "age", "rank", "serial", "active", "bonus",
                    "hired", "photo", "badge", "homepage", "department", "mentor", "projects", "nope"]
        let values = ["\"Employee\"", "\"Department\"", "null", "true", "false", "0", "-0", "1", "-12", "32767", "32768",
                      "2147483648", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1.5", "-2.25e-3",
                      "1E5", "0.1", "123456789.125", "\"\"", "\"x\"", "\"a\\\"b\"", "\"\\u00e9\"", "\"NaN\"", "\"12.5\"",
                      "\"2024-05-01T12:00:00Z\"", "\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"", "\"https://e.com\"",
                      "{\"@base64\": \"AAEC\"}", "{\"@ref\": \"d\"}", "{\"@id\": \"strata://s/Employee/1\"}", "[]",
                      "[{\"@ref\": \"p\"}]", "[{\"@ref\": \"p\"}, {\"@ref\": \"q\"}]", "{}", "[1]", "{\"@ref\": 1}"]
        var fast = 0
        for _ in 0..<3_000 {
            var parts: [String] = []
            if generator.next() % 8 != 0 { parts.append("\"@entity\": \"Employee\"") }
            for _ in 0..<(generator.next() % 6) {
                let key = keys[Int(generator.next() % UInt64(keys.count))]
                let value = values[Int(generator.next() % UInt64(values.count))]
                parts.append("\"\(key)\": \(value)")
            }
            if generator.next() % 2 == 0 { parts.shuffle(using: &generator) }
            let text = "{" + parts.joined(separator: generator.next() % 2 == 0 ? "," : " , ") + "}"
            if decoder.decodeFast(bytes(text)) != nil { fast += 1 }
            agree(text)
        }
        #expect(fast > 100, "the generator reaches the fast path")
    }
}

/// A small deterministic generator for the randomised tests.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `check` (an import's first pass) accepts and refuses what `decode` does, with the
/// same entity and names.
@Suite struct JSONLineCheckTests {
    private let decoder = JSONLineDecoder(model: ImportTestModel.model)

    @Test(arguments: JSONLineDecoderTests.plainLines + JSONLineDecoderTests.referenceLines)
    func checkAgreesWithDecode(_ text: String) {
        let line = Array(text.utf8)[...]
        let decoded = Result { () throws(LineProblem) in try decoder.decode(line) }
        let checked = Result { () throws(LineProblem) in try decoder.check(line) }
        switch (decoded, checked) {
        case let (.success(full), .success(names)):
            #expect(names == CheckedLine(entityName: full.entity.name, names: full.names), "\(text)")
        case let (.failure(a), .failure(b)):
            #expect(a.description == b.description)
        default:
            Issue.record("check and decode disagree on \(text)")
        }
    }
}
