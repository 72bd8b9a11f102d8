import BenchSupport
import Foundation

// BenchProfile: one of BenchSummary's object-layer workloads on Strata's side alone,
// repeated, for a profiler (`valgrind --tool=callgrind`, `perf record`/`perf stat`):
// the store is built first, then the measured part runs ITERATIONS times and prints
// its median time. No SQLite: a profile should hold Strata's work only.
//
//   BenchProfile MODE [--employees N] [--iterations I] [--queries Q] [--typed]
//   MODE: idx (departmentID == d), scan (salary BETWEEN), ord (sorted by the index),
//         insert (10k through a context, one save, no fsync), faults (100k random ids),
//         split (the photo split of N employees with 1 KiB inline photos, a fresh copy each time),
//         compact (compaction after overwriting half of N employees, a fresh copy each time),
//         unique (email made unique by an in-place migration of a fresh copy of the N store),
//         older-current, older-once, older-mixed, older-pass, older-stillopen, older-unsettled
//         (Q random lookups by id reading name, salary and bonus, 100k by default: in N
//         employees written at the migrated model, every other one rewritten, compacted;
//         the same written once; migrated in place with every other one rewritten, then
//         compacted keeping the older layout, after a compaction pass, compacted with the
//         rewriter and left open, or not compacted; see OlderLayoutReads.Settling).
//         Profile the lookups alone with --toggle-collect='*layoutLookups*'.
@main
struct BenchProfile {
    static func main() throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let mode = arguments.first else { return usage() }
        arguments.removeFirst()
        var employees = 10_000, iterations = 20, queries = 0
        var iterator = arguments.filter { $0 != "--typed" }.makeIterator()
        while let argument = iterator.next() {
            guard let value = iterator.next().flatMap(Int.init) else { return usage() }
            switch argument {
            case "--employees": employees = value
            case "--iterations": iterations = value
            case "--queries": queries = value
            default: return usage()
            }
        }
        defer { FixtureCache.shared.removeAll() }
        let data = EmployeeData.employees(count: employees)
        // `--typed`: StrataData's @Model engine instead of the untyped object layer.
        let typed = CommandLine.arguments.contains("--typed")
        let engine: any EmployeeEngine = typed ? StrataTypedEngine(durability: .none) : StrataObjectEngine(durability: .none)
        var times: [Duration] = []
        var checksum = 0
        switch mode {
        case "idx", "scan", "ord":
            let list: [EmployeeQuery] = switch mode {
            case "idx": EmployeeQuery.byDepartment(count: queries > 0 ? queries : EmployeeQuery.indexedQueries)
            case "scan": EmployeeQuery.bySalary(count: queries > 0 ? queries : EmployeeQuery.scanQueries)
            default: EmployeeQuery.byDepartmentOrder(count: queries > 0 ? queries : EmployeeQuery.orderedQueries)
            }
            let store = try engine.open(in: FixtureCache.shared.directory(for: engine, employees: data))
            defer { try? store.close() }
            for _ in 0..<iterations {
                let start = ContinuousClock.now
                checksum &+= try store.run(list)
                times.append((ContinuousClock.now - start) / list.count)
            }
        case "insert":
            for _ in 0..<iterations {
                let scratch = try ScratchDirectory("profile-insert")
                defer { scratch.remove() }
                let store = try engine.create(in: scratch.path)
                let start = ContinuousClock.now
                try store.insertInOneTransaction(data)
                times.append(ContinuousClock.now - start)
                try store.close()
            }
        case "faults":
            let ids = EmployeeData.lookupIDs(count: queries > 0 ? queries : 100_000, maxID: employees)
            let store = try engine.open(in: FixtureCache.shared.directory(for: engine, employees: data))
            defer { try? store.close() }
            try store.prepareForFetch()
            for _ in 0..<iterations {
                let start = ContinuousClock.now
                checksum &+= try store.fetchNameAndSalary(ids: ids)
                times.append(ContinuousClock.now - start)
            }
        case "split":
            let scenario = PhotoScenario(employees: employees, photoKiB: 1)
            for _ in 0..<iterations {
                let iteration = try PhotoTask.migrateStrata.workload(scenario)
                let start = ContinuousClock.now
                checksum &+= try iteration.run()
                times.append(ContinuousClock.now - start)
                try iteration.finish()
            }
        case "compact":
            // Compaction after overwriting half: the set-up (a fresh copy, half the
            // employees saved again) is not measured.
            for _ in 0..<iterations {
                let iteration = try CompactionWorkload.strata(data)
                let reset = ResidentMemory.reset()
                let before = ResidentMemory.current ?? 0
                let start = ContinuousClock.now
                checksum &+= try iteration.run()
                times.append(ContinuousClock.now - start)
                if reset, let peak = ResidentMemory.peak {
                    print(String(format: "compact: resident %.1f MiB before, peak %.1f MiB (+%.1f)", Double(before) / 1_048_576, Double(peak) / 1_048_576, Double(peak - before) / 1_048_576))
                }
                try iteration.finish()
            }
        case "unique":
            let model = try BenchModels.employees(after: .unique)
            for _ in 0..<iterations {
                let iteration = try LightweightMigration.strata(data, model: model)
                let reset = ResidentMemory.reset()
                let before = ResidentMemory.current ?? 0
                let start = ContinuousClock.now
                checksum &+= try iteration.run()
                times.append(ContinuousClock.now - start)
                if reset, let peak = ResidentMemory.peak {
                    print(String(format: "unique: resident %.1f MiB before, peak %.1f MiB (+%.1f)", Double(before) / 1_048_576, Double(peak) / 1_048_576, Double(peak - before) / 1_048_576))
                }
                try iteration.finish()
            }
        case _ where mode.hasPrefix("older-"):
            let settlings: [String: OlderLayoutReads.Settling] = [
                "older-mixed": .keepingLayouts, "older-pass": .compactionPass,
                "older-stillopen": .rewrittenStillOpen, "older-unsettled": .unsettled,
            ]
            let store: OlderLayoutReads.Store
            if mode == "older-current" || mode == "older-once" {
                store = try OlderLayoutReads.current(data, rewritingEveryOther: mode == "older-current")
            } else if let settling = settlings[mode] {
                store = try OlderLayoutReads.mixed(data, settling: settling)
            } else {
                return usage()
            }
            defer { store.close() }
            let census = try store.census()
            print("\(mode): records by layout \(census.layouts.sorted { $0.key < $1.key }), \(census.segments) segments")
            let ids = EmployeeData.lookupIDs(count: queries > 0 ? queries : 100_000, maxID: employees)
            for _ in 0..<iterations {
                let start = ContinuousClock.now
                checksum &+= try store.layoutLookups(ids: ids)
                times.append(ContinuousClock.now - start)
            }
        default:
            return usage()
        }
        times.sort()
        print("\(mode) \(employees): median \(times[times.count / 2]), best \(times[0]) per \(["idx", "scan", "ord"].contains(mode) ? "query" : "run") (checksum \(checksum))")
    }

    static func usage() {
        FileHandle.standardError.write(Data("usage: BenchProfile idx|scan|ord|insert|faults|split|compact|unique|older-current|older-once|older-mixed|older-pass|older-stillopen|older-unsettled [--employees N] [--iterations I] [--queries Q]\n".utf8))
        exit(2)
    }
}
