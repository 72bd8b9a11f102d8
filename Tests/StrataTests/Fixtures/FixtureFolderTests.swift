import Foundation
import Testing
import StrataLog
import StrataTestSupport
import Strata

/// The promise of FORMAT.md §1.2 kept in `Fixtures/stores/`: every readable format
/// version has a folder of stores, every file in `format-<N>/` says version N, and each
/// store opens read-only where it is committed without writing a byte.
@Suite struct FixtureFolderTests {
    @Test func everyReadableFormatVersionHasItsFixtures() throws {
        let folders = FixtureStore.formatFolders
        for version in Format.readableVersions {
            #expect(folders.contains("format-\(version)"), "Fixtures/stores/format-\(version)/ is missing: run Fixtures/stores/regenerate.sh")
        }
        for folder in folders {
            for name in FixtureStore.models.keys {
                let fixture = FixtureStore(folder: folder, name: name)
                #expect(FileManager.default.fileExists(atPath: fixture.path + "/MANIFEST"), "\(fixture): no store")
                #expect(FileManager.default.fileExists(atPath: fixture.dataPath), "\(fixture): no data file beside the store")
            }
        }
    }

    /// The manifest and every segment, blob and hint file carry the version at offset 8
    /// (FORMAT.md §1.1), and every index file in its footer (§7.1), so a folder cannot
    /// hold stores of another version by mistake.
    @Test(arguments: FixtureStore.formatFolders)
    func everyFileSaysTheFolderFormatVersion(folder: String) throws {
        let version = try #require(FixtureStore.formatVersion(ofFolder: folder))
        for name in FixtureStore.models.keys.sorted() {
            let path = FixtureStore(folder: folder, name: name).path
            var files = ["MANIFEST"]
            for (directory, suffix) in [("segments", ".seg"), ("blobs", ".blob"), ("index", ".hint")] {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path + "/" + directory)) ?? []
                files += names.filter { $0.hasSuffix(suffix) }.map { directory + "/" + $0 }
            }
            #expect(files.count >= 3, "\(folder)/\(name): a manifest, a segment and a blob file at least")
            let indexFiles = ((try? FileManager.default.contentsOfDirectory(atPath: path + "/index")) ?? []).filter { $0.hasSuffix(".idx") }
            if version >= 2 {
                for file in indexFiles {
                    let bytes = try FileBytes.read(path + "/index/" + file)
                    try #require(bytes.count >= 160, "\(folder)/\(name)/index/\(file) is shorter than a footer")
                    let footer = bytes.count - 160
                    let written = bytes[(footer + 8)..<(footer + 12)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                    #expect(written == version, "\(folder)/\(name)/index/\(file) says format \(written)")
                }
            } else {
                #expect(indexFiles.isEmpty, "\(folder)/\(name): a format-1 store has no index files")
            }
            for file in files {
                let bytes = try FileBytes.read(path + "/" + file)
                try #require(bytes.count >= 12, "\(folder)/\(name)/\(file) is shorter than a header")
                let written = bytes[8..<12].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                #expect(written == version, "\(folder)/\(name)/\(file) says format \(written)")
            }
        }
    }

    @Test(arguments: FixtureStore.formatFolders)
    func opensReadOnlyInPlaceWritingNothing(folder: String) throws {
        for (name, modelFile) in FixtureStore.models.sorted(by: { $0.key < $1.key }) {
            let fixture = FixtureStore(folder: folder, name: name)
            let before = try DirectorySnapshot(fixture.path)
            let model = try ObjectModel(contentsOf: FixturePaths.model(modelFile))
            var options = StoreOptions()
            options.log.readOnly = true
            options.log.createIfMissing = false
            let store = try ObjectStore(at: fixture.path, model: model, options: options)
            let context = store.newContext()
            var objects = 0
            for entity in model.entities where !entity.isAbstract {
                var request = FetchRequest(entityName: entity.name)
                request.includesSubentities = false
                objects += try context.count(for: request)
            }
            #expect(objects == (try fixture.lines().count), "\(fixture): one object per line of its data file")
            #expect(try store.verify().isSound, "\(fixture)")
            try store.close()
            #expect(try DirectorySnapshot(fixture.path) == before, "\(fixture): a read-only open wrote to the committed store")
        }
    }
}
