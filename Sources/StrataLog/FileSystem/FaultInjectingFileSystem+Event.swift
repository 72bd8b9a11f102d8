extension FaultInjectingFileSystem {
    /// One operation seen while `isRecording` is on: lets a test assert the order of a
    /// durability protocol (write, fsync, rename, fsync the directory).
    public struct Event: Sendable, Equatable, CustomStringConvertible {
        public var operation: Fault.Operation
        /// The path operated on; a rename's source and destination.
        public var paths: [String]
        /// The errno of the fault injected into this operation, or nil when none was.
        public var injectedErrno: Int32?

        public init(operation: Fault.Operation, paths: [String], injectedErrno: Int32? = nil) {
            self.operation = operation
            self.paths = paths
            self.injectedErrno = injectedErrno
        }

        public var description: String {
            "\(operation) \(paths.joined(separator: " -> "))" + (injectedErrno.map { " (injected errno \($0))" } ?? "")
        }
    }
}
