import BenchSupport
import Foundation

extension Summary {
    /// History: durable one-object saves with history on and off (target: on ≤ 1.10×
    /// off), bytes a 100-object save writes (target: ≤ 5% more), beside SQLite with a
    /// trigger-kept history table; history's bytes after deleteHistory and a
    /// compaction (target: ≤ 5% of before); a read as of a past token, with and without
    /// a compaction since; a stalled feed delivering every transaction.
    func runHistory() throws {
        let singles = employees.prefix(min(employees.count, 3_000))
        let label = BenchScale.label(singles.count)
        progress("history: \(label) single durable saves, history off and on, beside SQLite")
        let saves = try Sample.measureInTurns(repetitions: max(repetitions, 5), sides: 4) { side in
            switch side {
            case 0: try HistoryWorkload.strataSaves(singles, history: false)
            case 1: try HistoryWorkload.strataSaves(singles, history: true)
            case 2: try HistoryWorkload.sqliteSaves(singles, history: false)
            default: try HistoryWorkload.sqliteSaves(singles, history: true)
            }
        }
        let commits = SummaryRow.Figure.throughput(operations: singles.count, unit: "commits")
        add("\(label) single saves through a context, durable, history off (everyCommit vs FULL)", commits, strata: saves[0], sqlite: saves[2])
        add("\(label) single saves through a context, durable, history on (Strata history vs SQLite trigger table)", commits, strata: saves[1], sqlite: saves[3])
        findings.append(String(format: "History on, one-object durable save: Strata %.3f× the time with it off (target ≤ 1.10×); SQLite with a trigger-kept history table %.3f× its time without",
                               saves[1].seconds / saves[0].seconds, saves[3].seconds / saves[2].seconds))
        // Without the fsync, which is most of a durable save and varies from one to the
        // next, what history costs a save's own work.
        progress("history: \(label) single saves without fsync, history off and on")
        let cpu = try Sample.measureInTurns(repetitions: max(repetitions, 5), sides: 2) { side in
            try HistoryWorkload.strataSaves(singles, history: side == 1, durability: .none)
        }
        findings.append(String(format: "History on, one-object save without fsync (the save's own work): Strata %.3f× the time with it off (%.1f µs against %.1f µs a save)",
                               cpu[1].seconds / cpu[0].seconds, cpu[1].seconds / Double(singles.count) * 1e6, cpu[0].seconds / Double(singles.count) * 1e6))

        progress("history: \(nLabel) inserted in one save, history off and on, beside SQLite")
        // Each side in a fresh child process: its peak is its own, not the parent's
        // data or an earlier side's freed memory.
        var big: [Sample] = []
        for task in [HistoryTask.strataOff, .strataOn, .sqliteOff, .sqliteOn] {
            let directory = try task.prepare(count: n)
            defer { directory.remove() }
            big.append(try ChildProcess.run(task.rawValue, directory: directory.path))
        }
        guard Set(big.map(\.result)) == [n] else { throw BenchError("one-save insert: counts \(big.map(\.result)), expected \(n)") }
        let rows = SummaryRow.Figure.throughput(operations: n, unit: "rows")
        add("Insert \(nLabel) through a context, one durable save, history off (everyCommit vs FULL)", rows, strata: big[0], sqlite: big[2])
        add("Insert \(nLabel) through a context, one durable save, history on (Strata history vs SQLite trigger table)", rows, strata: big[1], sqlite: big[3])
        findings.append(String(format: "History on, %@ inserted in one save: Strata %.2f× the time with it off, peak resident of its process %@ MiB against %@ MiB (the save's rise %@ against %@); SQLite with the trigger table %.2f× its time without",
                               nLabel, big[1].seconds / big[0].seconds, Format.mebibytes(big[1].peakResident), Format.mebibytes(big[0].peakResident),
                               Format.mebibytes(big[1].residentRise), Format.mebibytes(big[0].residentRise), big[3].seconds / big[2].seconds))

        progress("history: bytes of a 100-object save")
        let bytes = try [(true, false), (true, true), (false, false), (false, true)].map { strata, history in
            try HistoryWorkload.bytesPerSave(strata: strata, history: history, employees)
        }
        func more(_ on: Int, _ off: Int) -> String { String(format: "%+.1f%%", off > 0 ? (Double(on) / Double(off) - 1) * 100 : 0) }
        findings.append("History on, bytes a 100-object save writes: Strata \(bytes[1]) vs \(bytes[0]) off (\(more(bytes[1], bytes[0])), target ≤ +5%); SQLite WAL with the trigger table \(bytes[3]) vs \(bytes[2]) (\(more(bytes[3], bytes[2])))")

        progress("history: bytes after deleteHistory and a compaction")
        let retention = try HistoryWorkload.historyBytes(employees, commits: min(employees.count, 10_000))
        findings.append(String(format: "History of %@ one-object saves: %d bytes kept; after deleteHistory(before:) and a compaction %d bytes (%.1f%% of it, target ≤ 5%%)",
                               BenchScale.label(min(employees.count, 10_000)), retention.kept, retention.afterDelete,
                               retention.kept > 0 ? Double(retention.afterDelete) / Double(retention.kept) * 100 : 0))

        progress("history: \(nLabel) read as of a token 1k saves back")
        for task in [HistoryTask.pastSnapshot, .pastSnapshotCompacted] {
            let directory = try task.prepare(count: n)
            defer { directory.remove() }
            let sample = try ChildProcess.run(task.rawValue, directory: directory.path)
            guard sample.result == n else { throw BenchError("\(task.rawValue): \(sample.result) employees as of the token, expected \(n)") }
            findings.append(String(format: "snapshot(at:) a token 1k one-object saves back, %@, then a count and the 1k changed employees read as of it: %.1f ms, rise of the resident set %@ MiB (its process's peak %@ MiB)",
                                   task == .pastSnapshot ? "no compaction since" : "after a compaction (the versions it needs in compacted segments)",
                                   sample.seconds * 1e3, Format.mebibytes(sample.residentRise), Format.mebibytes(sample.peakResident)))
        }

        progress("history: a feed consumer stalled for 10k commits")
        let feed = try HistoryWorkload.stalledFeed(commits: 10_000)
        guard feed.inOrder, feed.delivered == 10_000 else { throw BenchError("changes(after:) delivered \(feed.delivered) of 10000, in order: \(feed.inOrder)") }
        findings.append("changes(after:) to a consumer stalled for 10k commits: all 10,000 delivered once, in order")
    }
}
