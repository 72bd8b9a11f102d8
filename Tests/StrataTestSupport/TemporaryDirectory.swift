import Foundation

/// A unique directory under the system's temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = "strata") throws {
        let base = NSTemporaryDirectory()
        let name = "\(label)-\(UUID().uuidString.prefix(8))"
        path = (base as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func appending(_ component: String) -> String {
        (path as NSString).appendingPathComponent(component)
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
