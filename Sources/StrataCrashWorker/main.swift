// Usage: StrataCrashWorker (write | compact | bulk | migrate) STORE SEED
// The child process of the real-crash tests (Tests/StrataLogTests/Crash, and
// Tests/StrataTests/Crash for migrate); see CrashWorker and MigrationWorker.
import Foundation
let arguments = CommandLine.arguments
let usage = "usage: StrataCrashWorker (write | compact | bulk | migrate) STORE SEED"
guard arguments.count == 4, let seed = UInt64(arguments[3]) else { CrashWorker.die(usage) }
do {
    if arguments[1] == "migrate" {
        try MigrationWorker(path: arguments[2], seed: seed).run()
        exit(0)
    }
    guard let mode = CrashWorker.Mode(rawValue: arguments[1]) else { CrashWorker.die(usage) }
    try CrashWorker(mode: mode, path: arguments[2], seed: seed).run()
} catch {
    CrashWorker.die("\(error)")
}
