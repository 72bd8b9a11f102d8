import Foundation

/// Finds an executable this package builds (the `strata` CLI, the crash worker) in the
/// build products directory beside the running tests: on Linux
/// `.build/debug/StrataPackageTests.xctest` is a file next to the executables; on macOS
/// the `.xctest` bundle's `Contents/MacOS` is three levels in. An environment variable
/// can name the file instead.
public enum BuiltProduct {
    public struct NotFound: Error, CustomStringConvertible {
        public let description: String
    }

    public static func url(named name: String, overrideVariable: String) throws -> URL {
        if let path = ProcessInfo.processInfo.environment[overrideVariable] {
            return URL(fileURLWithPath: path)
        }
        let fileManager = FileManager.default
        var directories: [URL] = []
        if let exe = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        if let first = CommandLine.arguments.first {
            directories.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        directories.append(Bundle.main.bundleURL)
        for directory in directories {
            for candidate in [directory, directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()] {
                let url = candidate.appendingPathComponent(name)
                if fileManager.isExecutableFile(atPath: url.path) { return url }
            }
        }
        throw NotFound(description: "\(name) not found beside the tests in \(directories.map(\.path)); build with --build-tests or set \(overrideVariable)")
    }
}
