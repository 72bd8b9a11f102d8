/// What a store's MANIFEST says, read without opening the store: the format version,
/// the store's id, the manifest's generation, how many segments and blob files are live,
/// and the caller's metadata (the object layer's recorded model).
///
/// ```swift
/// let summary = try LogStore.readManifest(at: "/var/lib/app/Employees.strata")
/// summary.metadata["strata.modelHash"]
/// ```
public struct ManifestSummary: Sendable, Equatable {
    /// The format version the store is written in (FORMAT.md §6).
    public var formatVersion: UInt32
    /// The store's 16-byte id.
    public var storeID: [UInt8]
    /// Increases with every manifest written.
    public var generation: UInt64
    /// How many segments the manifest lists.
    public var segmentCount: Int
    /// How many blob files the manifest lists.
    public var blobFileCount: Int
    /// The metadata the store's owner recorded, by key.
    public var metadata: [String: [UInt8]]
}

extension LogStore {
    /// Reads the store's MANIFEST and nothing else: no lock is taken, no segment is
    /// read, no recovery runs, nothing is written — so it works while another process
    /// writes the store, and on a store in a read-only directory.
    ///
    /// A store's metadata lives whole in its MANIFEST, which is only ever replaced by an
    /// atomic rename (FORMAT.md §6.2): a reader without the lock sees the old manifest or
    /// the new one, never a mixture. (A read-only `open` would also do, but it scans the
    /// active segment and loads every index, work proportional to the store.)
    ///
    /// - Throws: `.notFound` when the directory holds no store (no MANIFEST);
    ///   `.unsupportedFormat`; `.corrupt` naming the manifest and offset; `.io`.
    public static func readManifest(at path: String, fileSystem: any FileSystem = POSIXFileSystem()) throws -> ManifestSummary {
        let paths = StorePaths(path)
        guard fileSystem.exists(paths.manifest) else {
            throw StrataError(.notFound, "no store at this path (no MANIFEST)", path: path)
        }
        let manifest = try ManifestWriter(fileSystem: fileSystem, paths: paths).read()
        return ManifestSummary(
            formatVersion: manifest.version, storeID: manifest.storeID, generation: manifest.generation,
            segmentCount: manifest.segments.count, blobFileCount: manifest.blobFiles.count, metadata: manifest.metadata)
    }
}
