extension FaultInjectingFileSystem {
    /// One operation seen while `isRecording` is on: lets a test assert the order of a
    /// durability protocol (write, fsync, rename, fsync the directory).
    package struct Event: Sendable, Equatable, CustomStringConvertible {
        package var operation: Fault.Operation
        /// The path operated on; a rename's source and destination.
        package var paths: [String]
        /// The errno of the fault injected into this operation, or nil when none was.
        package var injectedErrno: Int32?

        package init(operation: Fault.Operation, paths: [String], injectedErrno: Int32? = nil) {
            self.operation = operation
            self.paths = paths
            self.injectedErrno = injectedErrno
        }

        package var description: String {
            "\(operation) \(paths.joined(separator: " -> "))" + (injectedErrno.map { " (injected errno \($0))" } ?? "")
        }
    }
}
