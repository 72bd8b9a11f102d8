import Foundation
import StrataTestSupport
import Testing
@testable import StrataCLI
import StrataImport

/// Hostile import input: a long line is not searched for its newline from its start
/// after every 64 KiB read (quadratic in its length), a line has a length limit and a
/// JSON value a depth limit.
@Suite struct CLIImportLimitTests {
    private let employees = FixturePaths.model("Employees-v1.json").path

    private func newStore(_ dir: TemporaryDirectory) throws -> String {
        let store = dir.appending("s.strata")
        let created = try StrataProcess.run(["create", store, "--model", employees], in: dir.path)
        #expect(created.status == 0, "\(created.stderr)")
        return store
    }

    /// Every byte is searched for a newline once: the count stays the input's size
    /// for one 8 MiB line (the old reader searched it 128 times over, 0.5 GiB).
    @Test func aLongLineIsSearchedOnce() throws {
        let dir = try TemporaryDirectory("cli-longline")
        defer { dir.remove() }
        let path = dir.appending("long.jsonl")
        let long = [UInt8](repeating: UInt8(ascii: "a"), count: 8 << 20)
        try Data(long + Array("\nshort\r\nlast".utf8)).write(to: URL(fileURLWithPath: path))
        let reader = try LineReader(path: path)
        #expect(try reader.next()?.count == long.count)
        #expect(try reader.next().map { Array($0) } == Array("short".utf8))
        #expect(try reader.next().map { Array($0) } == Array("last".utf8))
        #expect(try reader.next() == nil)
        #expect(reader.bytesSearched <= long.count + 16)
    }

    @Test func aLineOverTheLimitNamesItsLineAndBuffersNoMore() throws {
        let dir = try TemporaryDirectory("cli-linelimit")
        defer { dir.remove() }
        let path = dir.appending("input.jsonl")
        try Data(Array("ok\n".utf8) + [UInt8](repeating: UInt8(ascii: "b"), count: 4 << 20)).write(to: URL(fileURLWithPath: path))
        let reader = try LineReader(path: path, maximumLineLength: 100_000)
        #expect(try reader.next().map { Array($0) } == Array("ok".utf8))
        do {
            _ = try reader.next()
            Issue.record("expected a failure")
        } catch let failure as CommandFailure {
            #expect(failure.description.contains("line 2 is longer than 100000 bytes"))
        }
        // Refused once the limit was passed, not after reading the whole line.
        #expect(reader.bytesSearched < 100_000 + (64 << 10) * 2)
    }

    @Test func importRefusesALongLineBeforeWritingAnything() throws {
        let dir = try TemporaryDirectory("cli-import-longline")
        defer { dir.remove() }
        let store = try newStore(dir)
        let input = #"{"@entity": "Department", "name": "A"}"# + "\n" + #"{"@entity": "Department", "name": ""# + String(repeating: "x", count: 5_000) + "\"}\n"
        let run = try StrataProcess.run(["import", store, "--batch", "1", "--max-line-bytes", "1000"], input: input, in: dir.path)
        #expect(run.status == 1)
        #expect(run.stderr.contains("line 2 is longer than 1000 bytes"), "\(run.stderr)")
        let export = try StrataProcess.run(["export", store], in: dir.path)
        #expect(export.status == 0)
        #expect(export.lines.isEmpty, "nothing was imported")
        let fine = try StrataProcess.run(["import", store, "--max-line-bytes", "10000"], input: input, in: dir.path)
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    @Test func deeplyNestedJSONIsRefusedWithItsDepth() throws {
        let dir = try TemporaryDirectory("cli-import-deep")
        defer { dir.remove() }
        let store = try newStore(dir)
        let depth = 100_000
        let input = #"{"@entity": "Department", "name": "#
            + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}\n"
        let run = try StrataProcess.run(["import", store], input: input, in: dir.path)
        #expect(run.status == 1)
        #expect(run.stderr.contains("line 1"), "\(run.stderr)")
        #expect(run.stderr.contains("nested more than \(JSONLineCoder.maximumDepth) levels"), "\(run.stderr)")
    }

    @Test func depthCountsBracketsOutsideStringsOnly() {
        let limit = JSONLineCoder.maximumDepth
        let atLimit = Array((String(repeating: "[", count: limit) + String(repeating: "]", count: limit)).utf8)
        #expect(JSONLineCoder.positionPastMaximumDepth(atLimit) == nil)
        let past = Array((String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)).utf8)
        #expect(JSONLineCoder.positionPastMaximumDepth(past) == limit)
        let inString = Array(#"{"a": "\#(String(repeating: "[", count: 500))\"{{{", "b": [1]}"#.utf8)
        #expect(JSONLineCoder.positionPastMaximumDepth(inString) == nil)
    }
}
