/// A lock held in an `InMemoryFileSystem`. The token makes `unlock()` idempotent and
/// harmless after a crash released the lock and someone else took it.
final class InMemoryLock: FileLock {
    private let path: String
    private let token: Int
    private let fileSystem: InMemoryFileSystem

    init(path: String, token: Int, fileSystem: InMemoryFileSystem) {
        self.path = path
        self.token = token
        self.fileSystem = fileSystem
    }

    func unlock() {
        let (path, token) = (path, token)
        fileSystem.state.withLock { $0.unlock(path, token: token) }
    }

    // Released when dropped, as a POSIX lock is when its descriptor closes.
    deinit { unlock() }
}
