import Foundation
import StrataTestSupport
import Testing

/// The first pass checks runs of lines on two threads; what it reports must still be
/// the first problem in line order, across runs, and nothing may be written.
@Suite struct CLIImportFirstPassTests {
    private let employees = FixturePaths.model("Employees-v1.json").path

    private func lines(_ count: Int, replacing: [Int: String]) -> String {
        (1...count).map { replacing[$0] ?? #"{"@entity": "Department", "@ref": "d\#($0)", "name": "D\#($0)"}"# }.joined(separator: "\n") + "\n"
    }

    private func importing(_ input: String, _ extra: [String] = []) throws -> StrataRun {
        let dir = try TemporaryDirectory("cli-firstpass")
        defer { dir.remove() }
        let store = dir.appending("s.strata")
        #expect(try StrataProcess.run(["create", store, "--model", employees], in: dir.path).status == 0)
        let run = try StrataProcess.run(["import", store] + extra, input: input, in: dir.path)
        let export = try StrataProcess.run(["export", store], in: dir.path)
        #expect(export.lines.isEmpty, "nothing was imported")
        return run
    }

    @Test func theFirstBadLineIsReportedWhicheverThreadCheckedIt() throws {
        // Runs of 1,000 lines go to the two threads in turn: 900 and 1,100 fall in
        // runs checked at the same time.
        let input = lines(4_500, replacing: [900: #"{"@entity": "Department", "name": }"#, 1_100: #"{"@entity": "Nope"}"#, 3_300: #"{"@entity": "Nope"}"#])
        let run = try importing(input)
        #expect(run.status == 1)
        #expect(run.stderr.contains("line 900: not valid JSON"), "\(run.stderr)")
        #expect(!run.stderr.contains("1100") && !run.stderr.contains("3300"))
        let later = try importing(lines(4_500, replacing: [1_700: #"{"@entity": "Department", "name": }"#, 3_300: #"{"@entity": "Nope"}"#]))
        #expect(later.stderr.contains("line 1700: not valid JSON"), "\(later.stderr)")
    }

    @Test func aDuplicateNameBeforeABadLineIsReportedFirst() throws {
        let input = lines(4_500, replacing: [2_500: #"{"@entity": "Department", "@ref": "d10", "name": "again"}"#, 3_100: "{"])
        let run = try importing(input)
        #expect(run.status == 1)
        #expect(run.stderr.contains("line 2500: the name 'd10' is already defined on line 10"), "\(run.stderr)")
    }

    @Test func aBadLineBeforeALongOneIsReportedFirst() throws {
        let long = #"{"@entity": "Department", "name": ""# + String(repeating: "x", count: 3_000) + "\"}"
        let input = lines(3_500, replacing: [1_200: #"{"@entity": "Department", "nmae": "x"}"#, 3_400: long])
        let run = try importing(input, ["--max-line-bytes", "2000"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("line 1200: Department has no attribute or relationship 'nmae'"), "\(run.stderr)")
        let longOnly = try importing(lines(3_500, replacing: [3_400: long]), ["--max-line-bytes", "2000"])
        #expect(longOnly.stderr.contains("line 3400 is longer than 2000 bytes"), "\(longOnly.stderr)")
    }
}
