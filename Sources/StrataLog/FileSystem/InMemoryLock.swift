/// A lock held in an `InMemoryFileSystem`: the writer's, or a reader's registration.
/// The token makes `unlock()` idempotent and harmless after a crash released the lock
/// and someone else took it.
final class InMemoryLock: FileLock {
    private let path: String
    private let token: Int
    private let isReader: Bool
    private let fileSystem: InMemoryFileSystem

    init(path: String, token: Int, isReader: Bool = false, fileSystem: InMemoryFileSystem) {
        self.path = path
        self.token = token
        self.isReader = isReader
        self.fileSystem = fileSystem
    }

    func unlock() {
        let (path, token, isReader) = (path, token, isReader)
        fileSystem.state.withLock { isReader ? $0.unlockReader(path, token: token) : $0.unlock(path, token: token) }
    }

    // Released when dropped, as a POSIX lock is when its descriptor closes.
    deinit { unlock() }
}
