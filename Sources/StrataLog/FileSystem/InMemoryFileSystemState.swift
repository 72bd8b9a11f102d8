import SystemPackage

/// Everything an `InMemoryFileSystem` holds, guarded by its mutex.
///
/// The tree is made of nodes (inodes) named by integers; a directory maps names to
/// nodes. Files are nodes rather than paths so that what POSIX does falls out by itself:
/// a handle keeps reading a file after it is unlinked or renamed, and a rename that was
/// never made durable puts the old name back, pointing at the same bytes, after a crash.
struct InMemoryFileSystemState: Sendable {
    static let root = 0

    var directories: [Int: InMemoryDirectory] = [root: InMemoryDirectory()]
    var files: [Int: InMemoryFileContents] = [:]
    private var nextNode = 1

    /// Bumped by every crash; a handle opened in an earlier generation is dead.
    private(set) var generation = 0
    /// Open handles → the file node each one reads and writes.
    private var openHandles: [Int: Int] = [:]
    private var nextHandle = 0
    /// Normalized lock path → the token of the lock that holds it.
    private var locks: [String: Int] = [:]
    /// Normalized lock path → the tokens of the readers registered on it.
    private var readers: [String: Set<Int>] = [:]
    private var nextLockToken = 0

    init() {}

    // MARK: Paths

    /// The components of `path`; relative paths are taken from the root, `.` and `..`
    /// are resolved lexically.
    static func components(_ path: String) -> [String] {
        var result: [String] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." { _ = result.popLast() } else { result.append(String(part)) }
        }
        return result
    }

    static func normalized(_ path: String) -> String {
        "/" + components(path).joined(separator: "/")
    }

    /// The node at `path` through the current entries, or through the durable ones
    /// (what a crash now would leave).
    func node(at path: String, durable: Bool = false) -> Int? {
        var node = Self.root
        for name in Self.components(path) {
            guard let directory = directories[node],
                  let child = durable ? directory.durableEntries[name] : directory.entries[name]
            else { return nil }
            node = child
        }
        return node
    }

    /// The directory that holds (or would hold) the last component of `path`, and that name.
    func parent(of path: String) throws -> (directory: Int, name: String) {
        var names = Self.components(path)
        guard let name = names.popLast() else {
            throw StrataError.fromErrno(.invalidArgument, "the root directory cannot be changed", path: path)
        }
        var node = Self.root
        for component in names {
            guard let child = directories[node]?.entries[component] else {
                throw StrataError.fromErrno(.noSuchFileOrDirectory, "no such directory", path: path)
            }
            guard directories[child] != nil else {
                throw StrataError.fromErrno(.notDirectory, "a path component is a file", path: path)
            }
            node = child
        }
        return (node, name)
    }

    // MARK: Directory operations

    /// The file node at `path`, created (empty, in the current entries only) when missing
    /// and `create` is set.
    mutating func openFile(_ path: String, create: Bool) throws -> Int {
        if let node = node(at: path) {
            guard files[node] != nil else {
                throw StrataError.fromErrno(.isDirectory, "cannot open a directory as a file", path: path)
            }
            return node
        }
        guard create else {
            throw StrataError.fromErrno(.noSuchFileOrDirectory, "cannot open file", path: path)
        }
        let (directory, name) = try parent(of: path)
        let node = makeNode()
        files[node] = InMemoryFileContents()
        directories[directory]?.entries[name] = node
        return node
    }

    mutating func createDirectory(_ path: String) throws {
        var node = Self.root
        var prefix = ""
        for name in Self.components(path) {
            prefix += "/" + name
            if let child = directories[node]?.entries[name] {
                guard directories[child] != nil else {
                    throw StrataError.fromErrno(.fileExists, "cannot create directory: a file is in the way", path: prefix)
                }
                node = child
            } else {
                let child = makeNode()
                directories[child] = InMemoryDirectory()
                directories[node]?.entries[name] = child
                node = child
            }
        }
    }

    func contentsOfDirectory(_ path: String) throws -> [String] {
        guard let node = node(at: path) else {
            throw StrataError.fromErrno(.noSuchFileOrDirectory, "cannot list directory", path: path)
        }
        guard let directory = directories[node] else {
            throw StrataError.fromErrno(.notDirectory, "cannot list directory", path: path)
        }
        return directory.entries.keys.sorted()
    }

    mutating func remove(_ path: String) throws {
        guard node(at: path) != nil else { return }
        let (parent, name) = try parent(of: path)
        if let node = directories[parent]?.entries[name] { unlinkTree(node) }
        directories[parent]?.entries[name] = nil
        collectGarbage()
    }

    /// Empties a directory the way `rm -r` does, child by child, so that each child
    /// directory's own unsynced removals are what a crash undoes.
    private mutating func unlinkTree(_ node: Int) {
        guard let children = directories[node]?.entries.values else { return }
        for child in children { unlinkTree(child) }
        directories[node]?.entries = [:]
    }

    mutating func rename(_ source: String, to destination: String) throws {
        guard let node = node(at: source) else {
            throw StrataError.fromErrno(.noSuchFileOrDirectory, "cannot rename to \(destination)", path: source)
        }
        let (fromDirectory, fromName) = try parent(of: source)
        let (toDirectory, toName) = try parent(of: destination)
        let movingDirectory = directories[node] != nil
        if movingDirectory {
            let from = Self.components(source), to = Self.components(destination)
            if to.count > from.count && Array(to.prefix(from.count)) == from {
                throw StrataError.fromErrno(.invalidArgument, "cannot move a directory into itself", path: source)
            }
        }
        if let existing = directories[toDirectory]?.entries[toName] {
            if existing == node { return }
            if let replaced = directories[existing] {
                guard movingDirectory else {
                    throw StrataError.fromErrno(.isDirectory, "cannot replace a directory with a file", path: destination)
                }
                guard replaced.entries.isEmpty else {
                    throw StrataError.fromErrno(.directoryNotEmpty, "cannot replace a non-empty directory", path: destination)
                }
            } else if movingDirectory {
                throw StrataError.fromErrno(.notDirectory, "cannot replace a file with a directory", path: destination)
            }
        }
        directories[fromDirectory]?.entries[fromName] = nil
        directories[toDirectory]?.entries[toName] = node
        collectGarbage()
    }

    /// A second name for a file node; its bytes are shared (an inode with two links).
    mutating func link(_ source: String, to destination: String) throws {
        guard let node = node(at: source) else {
            throw StrataError.fromErrno(.noSuchFileOrDirectory, "cannot link to \(destination)", path: source)
        }
        guard files[node] != nil else {
            throw StrataError.fromErrno(.notPermitted, "cannot link to \(destination): a directory has no hard links", path: source)
        }
        let (directory, name) = try parent(of: destination)
        guard directories[directory]?.entries[name] == nil else {
            throw StrataError.fromErrno(.fileExists, "cannot link to \(destination): it exists", path: source)
        }
        directories[directory]?.entries[name] = node
    }

    mutating func syncDirectory(_ path: String) throws {
        guard let node = node(at: path) else {
            throw StrataError.fromErrno(.noSuchFileOrDirectory, "cannot open directory to sync", path: path)
        }
        guard directories[node] != nil else {
            throw StrataError.fromErrno(.notDirectory, "cannot open directory to sync", path: path)
        }
        directories[node]?.sync()
        collectGarbage()
    }

    // MARK: Handles

    mutating func openHandle(to node: Int) -> Int {
        nextHandle += 1
        openHandles[nextHandle] = node
        return nextHandle
    }

    /// Runs `body` on the bytes of the file behind an open handle.
    mutating func withFile<R>(
        handle: Int, generation: Int, path: String, _ body: (inout InMemoryFileContents) throws -> R
    ) throws -> R {
        guard let node = openHandles[handle], files[node] != nil else {
            if generation != self.generation {
                throw StrataError.fromErrno(.ioError, "the file handle did not survive a simulated crash", path: path)
            }
            throw StrataError.fromErrno(.badFileDescriptor, "the file is closed", path: path)
        }
        return try body(&files[node, default: InMemoryFileContents()])
    }

    /// How many current names reach the file behind an open handle.
    func linkCount(handle: Int, generation: Int) -> Int? {
        guard generation == self.generation, let node = openHandles[handle] else { return nil }
        return directories.values.reduce(0) { count, directory in count + directory.entries.values.filter { $0 == node }.count }
    }

    mutating func closeHandle(_ handle: Int) {
        openHandles[handle] = nil
        collectGarbage()
    }

    var openHandleCount: Int { openHandles.count }

    // MARK: Locks

    mutating func lock(_ path: String) throws -> Int {
        _ = try openFile(path, create: true)
        let key = Self.normalized(path)
        guard locks[key] == nil else {
            throw StrataError(.storeLocked, "store is locked: another writer has it open", path: path)
        }
        nextLockToken += 1
        locks[key] = nextLockToken
        return nextLockToken
    }

    mutating func unlock(_ path: String, token: Int) {
        let key = Self.normalized(path)
        if locks[key] == token { locks[key] = nil }
    }

    func isLocked(_ path: String) -> Bool { locks[Self.normalized(path)] != nil }

    mutating func lockForReading(_ path: String) throws -> Int {
        // As on a disk, a reader does not create the lock file.
        guard node(at: path) != nil else {
            throw StrataError.fromErrno(.noSuchFileOrDirectory, "cannot open lock file", path: path)
        }
        nextLockToken += 1
        readers[Self.normalized(path), default: []].insert(nextLockToken)
        return nextLockToken
    }

    mutating func unlockReader(_ path: String, token: Int) {
        let key = Self.normalized(path)
        readers[key]?.remove(token)
        if readers[key]?.isEmpty == true { readers[key] = nil }
    }

    func readersHold(_ path: String) -> Bool { readers[Self.normalized(path)] != nil }

    // MARK: Durability

    /// Power loss: files back to their durable bytes, directories to their durable
    /// entries; every handle and lock of the "process" is gone.
    mutating func crash(keepingUnsyncedBytes unsyncedBytes: Int) {
        kill()
        for node in directories.keys { directories[node]?.crash() }
        for node in files.keys { files[node]?.crash(keepingUnsyncedBytes: unsyncedBytes) }
        collectGarbage()
    }

    /// The process dies and the machine stays up: every handle and lock of the
    /// "process" is gone, and what it wrote stays, durable or not, in the page cache.
    mutating func kill() {
        generation += 1
        openHandles = [:]
        locks = [:]
        readers = [:]
    }

    /// Every file and directory as it is now becomes durable (a fixture's starting point).
    mutating func makeAllDurable() {
        for node in directories.keys { directories[node]?.sync() }
        for node in files.keys { files[node]?.sync() }
        collectGarbage()
    }

    /// Writes a file's bytes and its directory entry straight to "disk".
    mutating func setBytes(_ bytes: [UInt8], of path: String) throws {
        let node = try openFile(path, create: true)
        files[node]?.replace(with: bytes)
        let (directory, name) = try parent(of: path)
        directories[directory]?.durableEntries[name] = node
    }

    /// The bytes of files reachable through the current entries.
    var totalBytes: Int {
        var total = 0
        var pending = [Self.root]
        while let node = pending.popLast() {
            if let file = files[node] { total += file.current.count }
            if let directory = directories[node] { pending.append(contentsOf: directory.entries.values) }
        }
        return total
    }

    private mutating func makeNode() -> Int {
        defer { nextNode += 1 }
        return nextNode
    }

    /// Drops nodes that neither a current nor a durable entry nor an open handle
    /// reaches, so that tests which create and delete many segments stay small.
    private mutating func collectGarbage() {
        var reachable = Set<Int>()
        var pending = [Self.root] + openHandles.values
        while let node = pending.popLast() {
            guard reachable.insert(node).inserted, let directory = directories[node] else { continue }
            pending.append(contentsOf: directory.entries.values)
            pending.append(contentsOf: directory.durableEntries.values)
        }
        for node in Array(files.keys) where !reachable.contains(node) { files[node] = nil }
        for node in Array(directories.keys) where !reachable.contains(node) { directories[node] = nil }
    }
}
