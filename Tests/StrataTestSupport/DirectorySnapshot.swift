import Foundation

/// Every file under a directory with its bytes, to assert "unchanged byte for byte"
/// (the LOCK file is left out: it is empty and only ever locked).
public struct DirectorySnapshot: Equatable {
    public let files: [String: [UInt8]]

    public init(_ path: String) throws {
        var files: [String: [UInt8]] = [:]
        let manager = FileManager.default
        if let enumerator = manager.enumerator(atPath: path) {
            for case let name as String in enumerator where name != "LOCK" {
                var isDirectory: ObjCBool = false
                if manager.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                    files[name] = try FileBytes.read(path + "/" + name)
                }
            }
        }
        self.files = files
    }
}
