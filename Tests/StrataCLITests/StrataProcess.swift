import Foundation
import StrataTestSupport

/// One run of the built `strata` executable, as a user runs it: arguments, optional
/// standard input, and what it printed and returned.
struct StrataRun {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Output lines without the empty tail.
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
}

enum StrataProcess {
    /// Runs `strata` with `arguments`, feeding `input` on standard input. Output goes
    /// through files rather than pipes so a large export cannot fill a pipe and stall.
    /// - Parameters:
    ///   - standardOutput, standardError: a file to write to instead (`/dev/full`, say),
    ///     whose contents are then not returned.
    static func run(_ arguments: [String], input: String? = nil, in directory: String,
                    standardOutput: String? = nil, standardError: String? = nil) throws -> StrataRun {
        let process = Process()
        process.executableURL = try executableURL()
        process.arguments = arguments
        let id = UUID().uuidString.prefix(8)
        let outPath = directory + "/stdout-\(id)", errPath = directory + "/stderr-\(id)", inPath = directory + "/stdin-\(id)"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        _ = FileManager.default.createFile(atPath: inPath, contents: Data((input ?? "").utf8))
        defer {
            for path in [outPath, errPath, inPath] { try? FileManager.default.removeItem(atPath: path) }
        }
        guard let out = FileHandle(forWritingAtPath: outPath), let err = FileHandle(forWritingAtPath: errPath),
              let stdin = FileHandle(forReadingAtPath: inPath) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let redirected = [standardOutput, standardError].map { $0.flatMap(FileHandle.init(forWritingAtPath:)) }
        defer { for handle in redirected { try? handle?.close() } }
        process.standardOutput = redirected[0] ?? out
        process.standardError = redirected[1] ?? err
        process.standardInput = stdin
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        try stdin.close()
        return StrataRun(
            status: process.terminationStatus,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        )
    }

    /// The `strata` executable sits in the build products directory beside the test
    /// executable (as the crash tests find their worker); `STRATA_CLI` overrides.
    static func executableURL() throws -> URL {
        try BuiltProduct.url(named: "strata", overrideVariable: "STRATA_CLI")
    }
}

/// An export with each store's identifier taken out of its object URIs, so the
/// exports of two stores holding the same objects compare equal.
func withoutStoreIdentifiers(_ export: String) -> String {
    export.replacing(/strata:\/\/[0-9a-f]+\//, with: "strata://STORE/")
}
