/// Replaces MANIFEST atomically (FORMAT.md §6.2): write MANIFEST.tmp, fsync it,
/// rename over MANIFEST, fsync the directory. A crash at any step leaves either the
/// old manifest or the new one, never a mixture.
struct ManifestWriter {
    let fileSystem: any FileSystem
    let paths: StorePaths

    /// - Parameter syncingDirectory: false leaves the directory's fsync, which makes the
    ///   rename durable, to the caller: until it, a crash may bring the old manifest
    ///   back, so nothing the old one names may be removed before it, and no commit may
    ///   come to depend on a file only the new one names.
    func write(_ manifest: Manifest, syncingDirectory: Bool = true) throws {
        try fileSystem.remove(paths.manifestTemp)
        let file = try fileSystem.open(paths.manifestTemp, mode: .create)
        do {
            try file.write(manifest.encoded(), at: 0)
            try file.sync()
            try file.close()
        } catch {
            try? file.close()
            try? fileSystem.remove(paths.manifestTemp)
            throw error
        }
        try fileSystem.rename(paths.manifestTemp, to: paths.manifest)
        if syncingDirectory { try fileSystem.syncDirectory(paths.root) }
    }

    func read() throws -> Manifest {
        let file = try fileSystem.open(paths.manifest, mode: .readOnly)
        defer { try? file.close() }
        let size = try file.size()
        guard size <= 64 << 20 else {
            throw StrataError(.corrupt, "manifest is \(size) bytes, larger than any manifest this release writes", path: paths.manifest)
        }
        return try Manifest.decode(try file.readExactly(Int(size), at: 0), path: paths.manifest)
    }
}
