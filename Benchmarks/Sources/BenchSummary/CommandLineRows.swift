import BenchSupport
import Foundation

extension Summary {
    /// (13) The command line: `strata import` of N employees (name, salary)
    /// as JSON Lines into a new store and `strata export --entity Employee` of them,
    /// beside the `sqlite3` command doing the same work on the same file — a `.import`
    /// of the lines into a temporary table and one `INSERT … SELECT json_extract(…)`,
    /// then `SELECT json_object(…)` as one JSON object a line. Both run as child
    /// processes (wall time, and their peak resident set from GNU `/usr/bin/time`);
    /// the `strata` binary is `.build/release/strata` of the root package (or
    /// `$STRATA_CLI`), built with `swift build -c release --product strata`.
    func runCommandLine() throws {
        guard let strata = Self.strataExecutable() else {
            findings.append("Command line: skipped — no release `strata` binary (run `swift build -c release --product strata` at the repository root, or set STRATA_CLI)")
            return
        }
        guard let sqlite = MeasuredCommand.onPath("sqlite3") else {
            findings.append("Command line: skipped — no `sqlite3` command on PATH (Debian: apt-get install -y sqlite3)")
            return
        }
        for count in commandLineEmployees {
            try runCommandLine(count: count, strata: strata, sqlite: sqlite)
        }
    }

    private func runCommandLine(count: Int, strata: String, sqlite: String) throws {
        let label = BenchScale.label(count)
        let scratch = try ScratchDirectory("cli-\(label)")
        defer { scratch.remove() }
        let lines = scratch.path + "/employees.jsonl"
        try Self.writeEmployees(count: count, to: lines)
        let model = scratch.path + "/Employees.json"
        try Data(Self.model.utf8).write(to: URL(fileURLWithPath: model))
        let reps = count >= 1_000_000 ? 1 : repetitions

        progress("command line: import \(label) lines")
        var strataImports: [Sample] = []
        var sqliteImports: [Sample] = []
        let store = scratch.path + "/employees.strata", database = scratch.path + "/employees.sqlite"
        let script = scratch.path + "/import.sql"
        try Data("""
            CREATE TABLE employee(id INTEGER PRIMARY KEY, name TEXT NOT NULL, salary REAL NOT NULL DEFAULT 0);
            CREATE TEMP TABLE line(text TEXT);
            .mode ascii
            .separator "\\037" "\\n"
            .import \(lines) line
            INSERT INTO employee(name, salary) SELECT json_extract(text, '$.name'), json_extract(text, '$.salary') FROM line;

            """.utf8).write(to: URL(fileURLWithPath: script))
        for _ in 0..<reps {
            try? FileManager.default.removeItem(atPath: store)
            try? FileManager.default.removeItem(atPath: database)
            _ = try MeasuredCommand(executable: strata, arguments: ["create", store, "--model", model]).run()
            strataImports.append(try MeasuredCommand(executable: strata, arguments: ["import", store, "--file", lines]).run())
            sqliteImports.append(try MeasuredCommand(executable: sqlite, arguments: [database], standardInput: script).run())
        }
        add("`strata import` of \(label) JSON lines (name, salary) vs sqlite3 .import + json_extract", .throughput(operations: count, unit: "lines"),
            strata: Sample.combine(strataImports), sqlite: Sample.combine(sqliteImports))

        progress("command line: export \(label) objects")
        let strataOut = scratch.path + "/strata-export.jsonl", sqliteOut = scratch.path + "/sqlite-export.jsonl"
        var strataExports: [Sample] = []
        var sqliteExports: [Sample] = []
        for _ in 0..<reps {
            strataExports.append(try MeasuredCommand(executable: strata, arguments: ["export", store, "--entity", "Employee"], standardOutput: strataOut).run())
            sqliteExports.append(try MeasuredCommand(executable: sqlite, arguments: [database, "SELECT json_object('name', name, 'salary', salary) FROM employee"],
                                                     standardOutput: sqliteOut).run())
        }
        var exported = Sample.combine(strataExports), selected = Sample.combine(sqliteExports)
        exported.result = try Self.lineCount(strataOut)
        selected.result = try Self.lineCount(sqliteOut)
        try check(add("`strata export --entity Employee` of \(label) objects vs sqlite3 SELECT json_object", .throughput(operations: count, unit: "lines"),
                      strata: exported, sqlite: selected), expected: count)
    }

    /// `$STRATA_CLI`, else the root package's release build.
    static func strataExecutable() -> String? {
        if let path = ProcessInfo.processInfo.environment["STRATA_CLI"] {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent(".build/release/strata").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    static let model = """
        {"formatVersion": 1, "version": "1", "entities": [{"name": "Employee", "properties": [
          {"kind": "attribute", "name": "name", "type": "string"},
          {"kind": "attribute", "name": "salary", "type": "double", "default": 0}]}]}
        """

    /// The workload's employees as JSON Lines: `{"@entity": "Employee", "name": …, "salary": …}`.
    static func writeEmployees(count: Int, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw BenchError("cannot write \(path)")
        }
        defer { try? handle.close() }
        var chunk = ""
        for employee in EmployeeData.employees(count: count) {
            chunk += #"{"@entity": "Employee", "name": "\#(employee.name)", "salary": \#(Double(employee.salary) / 100)}"# + "\n"
            if chunk.utf8.count >= 1 << 20 {
                try handle.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        try handle.write(contentsOf: Data(chunk.utf8))
    }

    static func lineCount(_ path: String) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }
}
