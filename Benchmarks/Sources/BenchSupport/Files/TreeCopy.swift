import Foundation

/// `cp -r`: copies fixtures before a workload changes them, and is itself the yardstick
/// of the lightweight migration (which is compared with copying the store's files).
public enum TreeCopy {
    /// Copies the directory `source` to `destination` (which must not exist) with
    /// `/bin/cp -r`.
    public static func copy(_ source: String, to destination: String) throws {
        // posix_spawn and waitpid: Foundation's `Process.waitUntilExit` polls its run
        // loop every 50 ms, which would swamp the copy of a small store.
        let arguments = ["/bin/cp", "-r", source, destination]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/cp", nil, nil, argv, environ)
        guard spawned == 0 else { throw BenchError("posix_spawn /bin/cp failed: \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw BenchError("waitpid for cp failed: \(errno)") }
        }
        guard status == 0 else { throw BenchError("cp -r \(source) \(destination) failed with status \(status)") }
    }

    /// A workload that copies `source` into a new scratch directory with `cp -r`.
    public static func workload(copying source: String) throws -> WorkloadIteration {
        let scratch = try ScratchDirectory("cp")
        let destination = (scratch.path as NSString).appendingPathComponent("copy")
        return WorkloadIteration(
            run: { try copy(source, to: destination); return 1 },
            finish: { scratch.remove() })
    }
}
