import BenchSupport
import Foundation

extension Summary {
    /// The PostgreSQL store type beside the local store and SQLite, all durable (the
    /// server with fsync on, the local store syncing every commit, SQLite FULL): fetch
    /// by id and one-object saves timed one at a time (targets: p50 ≤ 0.3 ms and
    /// ≤ 2 ms), a batch insert (target ≥ 20k objects/s), the time a commit takes to
    /// reach another process's feed (target p99 ≤ 100 ms), an in-place lightweight
    /// stage (target at 1M ≤ 1 s). `--postgres LOCATION` names the server (`make bench-postgres`
    /// starts one on a Unix socket).
    func runPostgres() throws {
        guard let server = postgres else { throw BenchError("the postgres section needs --postgres LOCATION") }
        progress("postgres: \(nLabel) employees inserted in one transaction, on the server, locally and in SQLite")
        let pgLocation = PostgresWorkload.location(server, name: "bench")
        defer { try? PostgresWorkload.drop(pgLocation) }
        let pg = try PostgresWorkload.create(at: pgLocation, writer: .batchInsert)
        let localDirectory = try ScratchDirectory("postgres-local")
        defer { localDirectory.remove() }
        let local = try StrataObjectEngine(durability: .everyCommit, writer: .batchInsert).create(in: localDirectory.path)
        let sqliteDirectory = try ScratchDirectory("postgres-sqlite")
        defer { sqliteDirectory.remove() }
        let sqlite = try GRDBEngine(synchronous: .full).create(in: sqliteDirectory.path)
        var inserts: [Double] = []
        var insertMemory: Sample?
        let all = employees
        for store in [pg, local, sqlite] {
            // The server's insert with its peak: the client holds a chunk at a time.
            let sample = try Sample.once(WorkloadIteration(run: { try store.insertInOneTransaction(all); return all.count }, finish: {}), resetPeak: true)
            if insertMemory == nil { insertMemory = sample }
            inserts.append(sample.seconds)
        }
        let rows = SummaryRow.Figure.throughput(operations: n, unit: "objects")
        add("Insert \(nLabel) in one transaction, PostgreSQL store (batch insert) vs SQLite", rows,
            strata: Sample(seconds: inserts[0], result: n), sqlite: Sample(seconds: inserts[2], result: n))
        findings.append(String(format: "PostgreSQL store, batch insert of %@: %.0f objects/s (target ≥ 20,000); the local store %.0f objects/s; SQLite %.0f objects/s",
                               nLabel, Double(n) / inserts[0], Double(n) / inserts[1], Double(n) / inserts[2]))

        progress("postgres: fetch by id, one at a time")
        var random = SplitMix64(seed: 7)
        let ids = (0..<2_000).map { _ in Int64(random.next() % UInt64(n)) + 1 }
        var lookups: [[Double]] = []
        for store in [pg, local, sqlite] {
            try store.prepareForFetch()
            _ = try store.fetchNameAndSalary(ids: Array(ids.prefix(200)))
            var times: [Double] = []
            for id in ids {
                let started = ContinuousClock.now
                guard try store.fetchNameAndSalary(ids: [id]) != 0 else { throw BenchError("employee \(id) not found") }
                times.append(Self.seconds(ContinuousClock.now - started))
            }
            lookups.append(times)
        }
        findings.append("PostgreSQL store, fetch by id (a fault fired, one at a time, 2,000): " + Self.percentiles(lookups[0])
                        + " (target p50 ≤ 0.3 ms); the local store " + Self.percentiles(lookups[1]) + "; SQLite " + Self.percentiles(lookups[2]))

        progress("postgres: one-object durable saves, one at a time")
        var saves: [[Double]] = []
        // Employees after the stores' own: ids that none of them holds yet.
        let fresh = EmployeeData.employees(count: n + 1_000)[n...]
        for store in [pg, local, sqlite] {
            var times: [Double] = []
            for e in fresh {
                let started = ContinuousClock.now
                try store.insertEachInOwnTransaction([e][...])
                times.append(Self.seconds(ContinuousClock.now - started))
            }
            saves.append(times)
        }
        findings.append("PostgreSQL store, one-object durable save (1,000): " + Self.percentiles(saves[0])
                        + " (target ≤ 2 ms); the local store " + Self.percentiles(saves[1]) + "; SQLite " + Self.percentiles(saves[2]))
        for store in [pg, local, sqlite] { try store.close() }

        progress("postgres: commits seen by another process through its feed")
        findings.append("PostgreSQL store, a commit seen by another process (its `changes(after:)` feed, LISTEN/NOTIFY), 200 one-object saves 5 ms apart: " + Self.percentiles(try Self.feedDelays(server: server, commits: 200)) + " (target p99 ≤ 100 ms)")

        progress("postgres: a process serving the store (open, 2,000 lookups, 100 saves, a count), its memory")
        let extra = EmployeeData.employees(count: n + 1_100)[(n + 1_000)...]
        let serving = try Sample.once(WorkloadIteration(run: {
            try PostgresWorkload.serve(pgLocation, count: self.n, lookups: 2_000, saves: Array(extra))
        }, finish: {}), resetPeak: true)
        guard serving.result == n + 1_100 else { throw BenchError("serving: counted \(serving.result), expected \(n + 1_100)") }
        findings.append(String(format: "PostgreSQL store, memory at %@ objects on the server: the batch insert's peak rise %@ MiB (a chunk at a time); a process opening the store, reading 2,000 objects by id, saving 100 and counting, peak rise %@ MiB in %.2f s",
                               nLabel, Format.mebibytes(insertMemory?.residentRise), Format.mebibytes(serving.residentRise), serving.seconds))

        progress("postgres: an in-place lightweight stage (an attribute added) on \(nLabel) objects")
        let started = ContinuousClock.now
        try PostgresWorkload.migrate(pgLocation, to: BenchModels.employeesWithBonus())
        let stage = Self.seconds(ContinuousClock.now - started)
        findings.append(String(format: "PostgreSQL store, an in-place lightweight stage (bonus added) on %@ objects: %.0f ms, open included (target at 1M ≤ 1 s)", nLabel, stage * 1000))
    }

    /// Saves `commits` employees one at a time into a new store with history while
    /// another BenchSummary process (`--follow`) follows its feed; returns, for each
    /// commit, the seconds from its save's return to its arrival in the other process
    /// (both read the wall clock of this machine).
    static func feedDelays(server: String, commits: Int) throws -> [Double] {
        let location = PostgresWorkload.location(server, name: "feed")
        defer { try? PostgresWorkload.drop(location) }
        let store = try PostgresWorkload.createFollowed(at: location)
        defer { try? store.close() }
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        follower.arguments = ["--follow", location, String(commits)]
        let output = Pipe()
        follower.standardOutput = output
        try follower.run()
        // A follower that stops hearing commits would hold the run forever.
        let watchdog = DispatchWorkItem { follower.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        defer { watchdog.cancel() }
        var printed = Data()
        while !printed.contains(Data("READY\n".utf8)) {
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else { throw BenchError("the follower ended before it was ready") }
            printed.append(more)
        }
        Thread.sleep(forTimeInterval: 0.5)  // its listening connection up
        var saved: [Double] = []
        for e in EmployeeData.employees(count: commits) {
            saved.append(try PostgresWorkload.saveOne(e, in: store))
            Thread.sleep(forTimeInterval: 0.005)
        }
        printed.append(output.fileHandleForReading.readDataToEndOfFile())
        follower.waitUntilExit()
        guard follower.terminationStatus == 0 else { throw BenchError("the follower exited with \(follower.terminationStatus)") }
        var delays: [Double] = []
        for line in String(decoding: printed, as: UTF8.self).split(separator: "\n") where line.hasPrefix("ARRIVED ") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, let at = Double(fields[1]), let seen = Int(fields[2]), seen <= commits else {
                throw BenchError("the follower printed \(line)")
            }
            while delays.count < seen { delays.append(at - saved[delays.count]) }
        }
        guard delays.count == commits else { throw BenchError("the follower saw \(delays.count) of \(commits) commits") }
        return delays
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// "p50 0.21 ms, p99 0.48 ms" of a list of seconds.
    static func percentiles(_ times: [Double]) -> String {
        let sorted = times.sorted()
        guard !sorted.isEmpty else { return "none" }
        func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] * 1000 }
        return String(format: "p50 %.3f ms, p99 %.3f ms", at(0.5), at(0.99))
    }
}
