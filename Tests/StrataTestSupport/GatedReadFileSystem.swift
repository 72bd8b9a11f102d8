import Foundation
import StrataLog

/// A file system that can hold one read of an index file until the test lets it go:
/// whatever the reading thread holds meanwhile (a lock) shows in what other threads
/// can still do.
public final class GatedReadFileSystem: FileSystemWrapper {
    public let base: any FileSystem
    private let gate = Gate()

    public init(wrapping base: any FileSystem) {
        self.base = base
    }

    /// The next read of a file under `index/` blocks until ``release()``.
    public func holdNextIndexRead() { gate.arm() }

    /// Waits until a read is held; false when none came within `timeout`.
    public func waitUntilHeld(timeout: Duration) -> Bool { gate.waitUntilHeld(timeout: timeout) }

    /// Lets the held read (and every later one) go.
    public func release() { gate.release() }

    public func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
        let file = try base.open(path, mode: mode)
        return path.contains("/index/") ? GatedFile(base: file, gate: gate) : file
    }
}

private final class Gate: Sendable {
    private struct State {
        var armed = false
        var held = false
        var released = false
    }

    private let state = Locked(State())

    func arm() { state.withLock { $0 = State(armed: true) } }

    /// Blocks the caller when the gate is armed and no read is held yet.
    func pass() {
        let holds = state.withLock { s -> Bool in
            guard s.armed, !s.held, !s.released else { return false }
            s.held = true
            return true
        }
        guard holds else { return }
        while !state.withLock({ $0.released }) { usleep(1_000) }
    }

    func waitUntilHeld(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.held }) { return true }
            usleep(1_000)
        }
        return false
    }

    func release() { state.withLock { $0.released = true } }
}

private final class GatedFile: StorageFileWrapper {
    let base: any StorageFile
    let gate: Gate

    init(base: any StorageFile, gate: Gate) {
        self.base = base
        self.gate = gate
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        gate.pass()
        return try base.read(into: buffer, at: offset)
    }
}
