import Logging

extension Logger {
    /// A logger that drops everything below warning, so test output stays readable.
    public static var quiet: Logger {
        var logger = Logger(label: "strata.test")
        logger.logLevel = .error
        return logger
    }
}
