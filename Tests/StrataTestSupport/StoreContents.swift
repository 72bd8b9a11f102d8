import StrataLog
import Logging

/// What a store holds as a reader sees it — every live record with its sequence and
/// terms, the last sequence, the metadata, the format version — and the bytes of its
/// blob files, to assert "unchanged" where its segment files and manifest may differ:
/// an in-place index build that stops at a duplicate has sealed the active segment to
/// begin its own, and written its manifest to reserve term numbers and put them back.
/// A file left behind beside the store's own (a `.tmp`) is a difference too.
public struct StoreContents: Equatable {
    public let records: [Record]
    public let lastSequence: UInt64
    public let metadata: [String: [UInt8]]
    public let formatVersion: UInt32
    public let blobFiles: [String: [UInt8]]
    /// Files under the store whose names end in `.tmp`.
    public let temporaryFiles: [String]

    /// Reads the store at `path`, opened read-only (nothing in it is written).
    public init(_ path: String, fileSystem: any FileSystem = POSIXFileSystem()) throws {
        var options = LogStoreOptions()
        options.readOnly = true
        let store = try LogStore.open(at: path, options: options, fileSystem: fileSystem, logger: .quiet)
        defer { try? store.close() }
        var records: [Record] = []
        try store.scan { records.append(contentsOf: $0) }
        self.records = records
        lastSequence = store.lastSequence
        metadata = store.metadata
        formatVersion = store.formatVersion
        var blobFiles: [String: [UInt8]] = [:]
        let blobs = path + "/blobs"
        for name in fileSystem.exists(blobs) ? try fileSystem.contentsOfDirectory(blobs) : [] {
            let file = try fileSystem.open(blobs + "/" + name, mode: .readOnly)
            defer { try? file.close() }
            var bytes = [UInt8](repeating: 0, count: Int(try file.size()))
            let count = try bytes.withUnsafeMutableBytes { try file.read(into: $0, at: 0) }
            blobFiles[name] = Array(bytes.prefix(count))
        }
        self.blobFiles = blobFiles
        var temporary: [String] = []
        for directory in ["", "/segments", "/index", "/blobs"] where fileSystem.exists(path + directory) {
            temporary += try fileSystem.contentsOfDirectory(path + directory).filter { $0.hasSuffix(".tmp") }.map { directory + "/" + $0 }
        }
        temporaryFiles = temporary.sorted()
    }
}
