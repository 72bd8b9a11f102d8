// Usage: StrataCrashWorker (write | compact) STORE SEED
// The child process of the real-crash tests (Tests/StrataLogTests/Crash); see CrashWorker.
let arguments = CommandLine.arguments
guard arguments.count == 4, let mode = CrashWorker.Mode(rawValue: arguments[1]), let seed = UInt64(arguments[3]) else {
    CrashWorker.die("usage: StrataCrashWorker (write | compact) STORE SEED")
}
do {
    try CrashWorker(mode: mode, path: arguments[2], seed: seed).run()
} catch {
    CrashWorker.die("\(error)")
}
