import Foundation

/// Direct byte edits on real files, for damage tests.
public enum FileBytes {
    public static func read(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    public static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    public static func flip(_ path: String, at offset: Int, mask: UInt8 = 0x40) throws {
        var bytes = try read(path)
        bytes[offset] ^= mask
        try write(bytes, to: path)
    }

    public static func truncate(_ path: String, to size: Int) throws {
        let bytes = try read(path)
        try write(Array(bytes.prefix(size)), to: path)
    }

    public static func append(_ extra: [UInt8], to path: String) throws {
        try write(try read(path) + extra, to: path)
    }

    /// Copies a directory tree (a store) to a new place.
    public static func copyDirectory(_ source: String, to destination: String) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: destination) { try manager.removeItem(atPath: destination) }
        try manager.copyItem(atPath: source, toPath: destination)
    }

    public static func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
