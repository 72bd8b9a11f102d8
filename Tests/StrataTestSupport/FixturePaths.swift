import Foundation

/// Paths of the committed fixtures, found from this source file's location.
public enum FixturePaths {
    public static var root: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures").path
    }

    public static func model(_ name: String) -> URL {
        URL(fileURLWithPath: root).appendingPathComponent("models").appendingPathComponent(name)
    }

    public static func store(_ name: String) -> String {
        URL(fileURLWithPath: root).appendingPathComponent("stores").appendingPathComponent(name).path
    }
}
