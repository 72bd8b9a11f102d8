import Synchronization
import SystemPackage

/// Wraps any `FileSystem` and fails chosen operations, for tests of what the engine does
/// when the disk misbehaves: EIO on the 3rd fsync of a segment, a manifest rename that
/// fails, a short write, a disk that fills up.
///
/// ```swift
/// let fs = FaultInjectingFileSystem(wrapping: InMemoryFileSystem())
/// let id = fs.inject(.fail(.sync, errno: EIO, matching: "segments/", on: .nth(3)))
/// // … run the workload; the 3rd fsync of a segment throws StrataError.Code.io (errno 5) …
/// #expect(fs.timesFired(id) == 1)
/// fs.clearFaults()
/// ```
///
/// Faults can be injected and cleared at any time from any thread. Every operation is
/// counted per kind (`count(of:)`), injected faults or not, so a test can run a workload
/// once to learn how many fsyncs it does and then fail each in turn. A failed operation
/// does not reach the wrapped file system, except `close`, which closes anyway (as
/// close(2) frees the descriptor even when it reports an error), and a short write,
/// which writes its prefix.
///
/// ## Topics
/// - ``inject(_:)``
/// - ``removeFault(_:)``
/// - ``clearFaults()``
/// - ``timesFired(_:)``
/// - ``count(of:)``
/// - ``counts``
/// - ``isRecording``
/// - ``events``
package final class FaultInjectingFileSystem: FileSystem, ReaderLocking {
    /// The file system that operations reach when no fault fires.
    package let base: any FileSystem
    let state = Locked(FaultInjectionState())

    /// Wraps `base`; no fault is injected until `inject(_:)`.
    package init(wrapping base: any FileSystem) {
        self.base = base
    }

    // MARK: Faults and counters

    /// Adds a fault; it applies from the next operation on, together with those already
    /// injected (the first that fires decides an operation's fate).
    @discardableResult
    package func inject(_ fault: Fault) -> Fault.ID {
        state.withLock { $0.inject(fault) }
    }

    /// Removes one fault.
    package func removeFault(_ id: Fault.ID) {
        state.withLock { $0.remove(id) }
    }

    /// Removes every fault (counters and the journal stay).
    package func clearFaults() {
        state.withLock { $0.clear() }
    }

    /// The faults in force, in injection order.
    package var faults: [Fault] {
        state.withLock { $0.rules.map(\.fault) }
    }

    /// How many operations `id` has failed, even after it was removed.
    package func timesFired(_ id: Fault.ID) -> Int {
        state.withLock { $0.fired[id] ?? 0 }
    }

    /// How many operations all faults have failed.
    package var totalFaultsFired: Int {
        state.withLock { $0.fired.values.reduce(0, +) }
    }

    /// Operations attempted so far, per kind (failed ones included).
    package var counts: [Fault.Operation: Int] {
        state.withLock { $0.counts }
    }

    /// Operations of one kind attempted so far.
    package func count(of operation: Fault.Operation) -> Int {
        state.withLock { $0.counts[operation] ?? 0 }
    }

    /// Bytes that writes have passed to the wrapped file system.
    package var bytesWritten: Int64 {
        state.withLock { $0.bytesWritten }
    }

    /// Zeroes the counters, `bytesWritten` and the journal (triggers keep their counts).
    package func resetCounts() {
        state.withLock { $0.resetCounts() }
    }

    /// Whether each operation is appended to `events`. Off by default, so that long
    /// workloads do not grow a journal nobody reads.
    package var isRecording: Bool {
        get { state.withLock { $0.isRecording } }
        set { state.withLock { $0.isRecording = newValue } }
    }

    /// The operations seen while `isRecording` was on, in order.
    package var events: [Event] {
        state.withLock { $0.events }
    }

    // MARK: FileSystem

    package func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
        try admit(mode == .create ? .create : .open, path, "cannot open file")
        return FaultInjectingFile(base: try base.open(path, mode: mode), owner: self)
    }

    package func createDirectory(_ path: String) throws {
        try admit(.createDirectory, path, "cannot create directory")
        try base.createDirectory(path)
    }

    package func contentsOfDirectory(_ path: String) throws -> [String] {
        try admit(.listDirectory, path, "cannot list directory")
        return try base.contentsOfDirectory(path)
    }

    package func exists(_ path: String) -> Bool { base.exists(path) }

    package func isDirectory(_ path: String) -> Bool { base.isDirectory(path) }

    package func remove(_ path: String) throws {
        try admit(.remove, path, "cannot remove")
        try base.remove(path)
    }

    package func rename(_ source: String, to destination: String) throws {
        try admit(.rename, [source, destination], "cannot rename to \(destination)")
        try base.rename(source, to: destination)
    }

    package func link(_ source: String, to destination: String) throws {
        try admit(.link, [source, destination], "cannot link to \(destination)")
        try base.link(source, to: destination)
    }

    package func syncDirectory(_ path: String) throws {
        try admit(.syncDirectory, path, "fsync of directory failed")
        try base.syncDirectory(path)
    }

    package func lock(_ path: String) throws -> any FileLock {
        try admit(.lock, path, "cannot lock store")
        return try base.lock(path)
    }

    /// Passed on, not counted: registering a reader is best effort (a read-only open
    /// goes on without it), so a fault in it would change nothing a test sees.
    package func lockForReading(_ path: String) throws -> any FileLock {
        try base.readerRegistry.lockForReading(path)
    }

    package func readersHold(_ path: String) -> Bool {
        base.readerRegistry.readersHold(path)
    }

    // MARK: Deciding

    func decide(_ operation: Fault.Operation, _ paths: [String], growth: Int64 = 0) -> FaultDecision {
        state.withLock { $0.decide(operation, paths: paths, growth: growth) }
    }

    /// Whether a full-disk fault is in force (a truncate then needs the file's size).
    var tracksSpace: Bool {
        state.withLock { state in
            state.rules.contains { if case .diskFull = $0.fault.effect { true } else { false } }
        }
    }

    /// Throws the injected error when a fault fires for this operation.
    func admit(
        _ operation: Fault.Operation, _ path: String, _ message: String, offset: Int64? = nil, growth: Int64 = 0
    ) throws {
        try admit(operation, [path], message, offset: offset, growth: growth)
    }

    func admit(
        _ operation: Fault.Operation, _ paths: [String], _ message: String, offset: Int64? = nil, growth: Int64 = 0
    ) throws {
        switch decide(operation, paths, growth: growth) {
        case .proceed:
            return
        case .fail(let errno, let fault), .partial(_, let errno, let fault):
            throw Self.injectedError(errno, message, fault: fault, path: paths.first, offset: offset)
        }
    }

    static func injectedError(_ errno: Int32, _ message: String, fault: String, path: String?, offset: Int64?) -> StrataError {
        var error = StrataError.fromErrno(Errno(rawValue: errno), message + " (injected fault)", path: path, offset: offset)
        error.context["injectedFault"] = fault
        return error
    }
}
