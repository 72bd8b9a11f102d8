// Usage: StrataCrashWorker (write | compact | bulk | concurrent | objects | migrate | layouts | history | readonly) STORE SEED
// The child process of the real-crash tests (Tests/StrataLogTests/Crash, and
// Tests/StrataTests/Crash for objects, migrate, layouts and history); see CrashWorker,
// ConcurrentCrashWorker, ObjectCrashWorker, MigrationWorker, LayoutRewriteWorker and
// HistoryCrashWorker; `readonly` measures a read-only open (ReadOnlyOpenWorker).
import Foundation
let arguments = CommandLine.arguments
let usage = "usage: StrataCrashWorker (write | compact | bulk | concurrent | objects | migrate | layouts | history | readonly | increment | insert | unique | commit | rewrite) STORE SEED"
guard arguments.count == 4, let seed = UInt64(arguments[3]) else { CrashWorker.die(usage) }
do {
    switch arguments[1] {
    case "increment", "insert", "unique", "commit", "rewrite":
        // The PostgreSQL race modes: STORE is a postgres:// location, SEED a count.
        try PostgresRaceWorker(mode: arguments[1], location: arguments[2], count: Int(seed)).run()
        exit(0)
    case "migrate":
        try MigrationWorker(path: arguments[2], seed: seed).run()
        exit(0)
    case "readonly":
        try ReadOnlyOpenWorker(path: arguments[2], overlayEntryLimit: Int(seed)).run()
        exit(0)
    case "layouts":
        try LayoutRewriteWorker(path: arguments[2], seed: seed).run()
        exit(0)
    case "concurrent":
        try ConcurrentCrashWorker(path: arguments[2], seed: seed).run()
    case "objects":
        try ObjectCrashWorker(path: arguments[2], seed: seed).run()
    case "history":
        try HistoryCrashWorker(path: arguments[2], seed: seed).run()
    default:
        guard let mode = CrashWorker.Mode(rawValue: arguments[1]) else { CrashWorker.die(usage) }
        try CrashWorker(mode: mode, path: arguments[2], seed: seed).run()
    }
} catch {
    CrashWorker.die("\(error)")
}
