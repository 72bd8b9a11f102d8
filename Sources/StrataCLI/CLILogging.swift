import Logging

/// The CLI's logger: warnings only, so command output stays readable; set
/// STRATA_LOG=info (or debug) to see what open, recovery and compaction did.
enum CLILogging {
    static var logger: Logger {
        var logger = Logger(label: "strata")
        let level = ProcessInfoLevel.fromEnvironment
        logger.logLevel = level
        return logger
    }
}

enum ProcessInfoLevel {
    static var fromEnvironment: Logger.Level {
        guard let raw = getenv("STRATA_LOG").map({ String(cString: $0) }), let level = Logger.Level(rawValue: raw) else { return .warning }
        return level
    }
}

#if canImport(Glibc)
import Glibc
#endif
