import Foundation
import Testing
import StrataTestSupport

/// One committed store of `Fixtures/stores/format-<N>/` and the JSON Lines file it was
/// imported from (Fixtures/stores/README.md).
struct FixtureStore: CustomStringConvertible {
    /// The stores every format folder holds, with the model file each was created with.
    static let models: [String: String] = [
        "employees-v1": "Employees-v1.json",
        "employees-lifecycle-v1": "Employees-v1.json",
        "events-v1": "Events-v1.json",
        "tasting-notes-v1": "TastingNotes-v1.json",
    ]

    /// Every `format-<N>` folder, oldest first. Tests run against each: a store written
    /// by any readable format version must keep opening (FORMAT.md §1.2).
    static var formatFolders: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: FixturePaths.store(""))) ?? []
        return names.compactMap { name in formatVersion(ofFolder: name).map { (name, $0) } }
            .sorted { $0.1 < $1.1 }
            .map(\.0)
    }

    /// N of a folder named `format-<N>`; nil for any other name.
    static func formatVersion(ofFolder name: String) -> UInt32? {
        guard name.hasPrefix("format-") else { return nil }
        return UInt32(name.dropFirst("format-".count))
    }

    let folder: String
    let name: String

    var path: String { FixturePaths.store(folder + "/" + name + ".strata") }
    var dataPath: String { FixturePaths.store(folder + "/" + name + ".jsonl") }
    var modelURL: URL { FixturePaths.model(Self.models[name] ?? name + ".json") }
    var description: String { folder + "/" + name }

    func lines() throws -> [FixtureLine] {
        try FixtureLine.read(dataPath)
    }

    /// Runs `body` on a fresh copy of the store, then checks that the committed files
    /// are as they were: tests migrate and write, the fixture must never change.
    func withCopy<T>(_ body: (String) throws -> T) throws -> T {
        let before = try DirectorySnapshot(path)
        #expect(!before.files.isEmpty, "\(self): no committed store at \(path)")
        let directory = try TemporaryDirectory("fixture-\(name)")
        defer { directory.remove() }
        let copy = directory.appending(name + ".strata")
        try Self.copyRegularFiles(from: path, to: copy)
        let result = try body(copy)
        #expect(try DirectorySnapshot(path) == before, "\(self): the committed fixture was modified")
        return result
    }

    /// Copies the files a clone of the repository has: regular files only. Git keeps no
    /// empty directory, so one the working tree happens to hold is not copied either; a
    /// store that needed it would fail here as it would for whoever clones.
    static func copyRegularFiles(from source: String, to destination: String) throws {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: source) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: source])
        }
        for case let relative as String in enumerator {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: source + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let target = destination + "/" + relative
            try manager.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try manager.copyItem(atPath: source + "/" + relative, toPath: target)
        }
    }
}
