import BenchSupport
import Foundation

// BenchSummary: both sides of every workload in one run, printed as Markdown tables of
// figures and Strata/SQLite ratios (package-benchmark prints each benchmark on its
// own). Memory-heavy parts of scenario 1 run in fresh child processes. Usage below;
// STRATA_BENCH_FULL=1 sets N to 1,000,000 and adds the 100k and 1M inline migrations.
@main
struct BenchSummary {
    static let usage = """
        usage: BenchSummary [--employees N] [--repetitions R] [--skip-singles] [--ten-million]
                            [--sections engine,fetch,objects,typed,photos,migration,maintenance,serving,history,scale,cli,postgres] [--postgres LOCATION] [--cli-employees N,N…]
                            [--serving-employees N,N…]
                            [--photo-employees N] [--migration-employees N,N…] [--blob-migration-employees N (0: none)]
                            [--migration-strata-only]
        """

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == ChildProcess.flag, arguments.count == 3 {
            ChildProcess.main(task: arguments[1], directory: arguments[2])
        }
        // The postgres section's other process, following the store's feed.
        if arguments.first == "--follow", arguments.count == 3, let changes = Int(arguments[2]) {
            exit(PostgresWorkload.followUntilDone(arguments[1], changes: changes))
        }
        let summary = Summary()
        var iterator = arguments.makeIterator()
        func count(_ text: String?, default value: Int) -> Int {
            guard let text, let n = Int(text), n >= 0 else { fail(usage) }
            return n
        }
        while let argument = iterator.next() {
            switch argument {
            case "--employees": summary.n = max(1, count(iterator.next(), default: summary.n))
            case "--repetitions": summary.repetitions = max(1, count(iterator.next(), default: summary.repetitions))
            case "--skip-singles": summary.skipSingles = true
            case "--postgres": summary.postgres = iterator.next()
            case "--ten-million": summary.tenMillion = true
            case "--photo-employees": summary.photoEmployees = max(1, count(iterator.next(), default: summary.photoEmployees))
            case "--migration-employees":
                summary.inlineMigrationEmployees = (iterator.next() ?? "").split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
            case "--cli-employees":
                summary.commandLineEmployees = (iterator.next() ?? "").split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
            case "--serving-employees":
                summary.servingEmployees = (iterator.next() ?? "").split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
            case "--migration-strata-only": summary.migrationStrataOnly = true
            case "--blob-migration-employees": summary.blobMigrationEmployees = count(iterator.next(), default: summary.blobMigrationEmployees)
            case "--sections":
                let names = (iterator.next() ?? "").split(separator: ",").map(String.init)
                let sections = names.compactMap(Summary.Section.init(rawValue:))
                guard !sections.isEmpty, sections.count == names.count else { fail(usage) }
                summary.sections = Set(sections)
            default: fail(usage)
            }
        }
        defer { FixtureCache.shared.removeAll() }

        let started = ContinuousClock.now
        do {
            if summary.sections.contains(.engine) { try summary.runEngine() }
            if summary.sections.contains(.fetch) && !summary.sections.contains(.engine) { try summary.runFetch() }
            if summary.sections.contains(.objects) { try summary.runObjects() }
            if summary.sections.contains(.typed) { try summary.runTyped() }
            if summary.sections.contains(.photos) { try summary.runPhotoList() }
            if summary.sections.contains(.migration) { try summary.runPhotoMigration() }
            if summary.sections.contains(.maintenance) { try summary.runMaintenance() }
            if summary.sections.contains(.serving) { try summary.runServing() }
            if summary.sections.contains(.history) { try summary.runHistory() }
            if summary.sections.contains(.scale) { try summary.runScale() }
            if summary.sections.contains(.cli) { try summary.runCommandLine() }
            if summary.sections.contains(.postgres) { try summary.runPostgres() }
        } catch {
            FixtureCache.shared.removeAll()
            fail("BenchSummary failed: \(error)")
        }
        summary.print(elapsed: ContinuousClock.now - started)
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
        FixtureCache.shared.removeAll()
        exit(message == usage ? 2 : 1)
    }
}
