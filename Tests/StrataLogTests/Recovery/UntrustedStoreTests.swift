import Foundation
import Testing
import Logging
import StrataTestSupport
@testable import StrataLog

/// A store directory from a backup, another machine or an attacker: files
/// the manifest does not list are never deleted when they may hold acknowledged data,
/// and no file of the store can make open act on a path outside it.
@Suite struct UntrustedStoreTests {
    /// A segment dropped from the manifest's list (CRC recomputed): open must not delete
    /// it as a leftover, losing its acknowledged keys without an error.
    @Test func aSegmentDroppedFromTheManifestIsKeptAndRefused() throws {
        let dir = try TemporaryDirectory("untrusted-dropped")
        defer { dir.remove() }
        _ = try FieldEditTests.makeStore(dir.path)
        let dropped = try #require(try FieldEditTests.sealedIDs(dir.path).last)
        let segment = StoreSurgery.segment(dir.path, dropped)
        try StoreSurgery.editManifest(dir.path) { $0.segments.removeAll { $0.id == dropped } }
        let bytes = try FileBytes.read(segment)
        for readOnly in [true, false] {
            var options = LogStoreOptions()
            options.readOnly = readOnly
            let error = #expect(throws: StrataError.self) { _ = try LogStore.open(at: dir.path, options: options, logger: .quiet) }
            #expect(error?.code == .corrupt)
            #expect(error?.path == segment)
            #expect(try FileBytes.read(segment) == bytes, "nothing removed or changed")
        }
        // Moved out of the store, as the error says, the rest opens; verify reports
        // that the manifest still counts the keys the segment held.
        try FileManager.default.moveItem(atPath: segment, toPath: dir.appending("set-aside.seg"))
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        let report = try store.verify()
        #expect(!report.isSound)
        #expect(report.problems.allSatisfy { $0.context["counter"] != nil }, "\(report)")
        try store.close()
    }

    @Test func aBlobFileDroppedFromTheManifestIsKeptAndRefused() throws {
        let dir = try TemporaryDirectory("untrusted-dropped-blob")
        defer { dir.remove() }
        do {
            var options = LogStoreOptions()
            options.blobFileSizeLimit = 256
            let store = try LogStore.open(at: dir.path, options: options, logger: .quiet)
            let ref = try store.writeBlob(LogFixtures.noise(1000, seed: 8)) // rolls: blob file 1 is sealed
            var batch = WriteBatch()
            batch.put(RecordKey(1), value: [1], blobs: [ref])
            try store.commit(batch)
            try store.close()
        }
        let blobFile = StorePaths(dir.path).blob(1)
        try StoreSurgery.editManifest(dir.path) { $0.blobFiles.removeAll { $0.id == 1 } }
        let error = #expect(throws: StrataError.self) { _ = try LogStore.open(at: dir.path, logger: .quiet) }
        #expect(error?.code == .corrupt)
        #expect(error?.path == blobFile)
        #expect(FileManager.default.fileExists(atPath: blobFile))
    }

    /// A sealed segment longer or shorter than when it was sealed (its index file
    /// sound) was changed since: rebuilding the index from it would take its records
    /// at their word (two keys swapped in a rewritten frame would read swapped). Open
    /// refuses with `.corrupt` naming it, writable or read-only, and changes nothing.
    @Test(arguments: [16, -8])
    func aSealedSegmentThatChangedLengthIsRefused(change: Int) throws {
        let dir = try TemporaryDirectory("untrusted-sealed-length")
        defer { dir.remove() }
        do {
            let store = try LogStore.open(at: dir.path, options: FieldEditTests.options, logger: .quiet)
            try ManifestCounterTests.fill(store, transactions: 3)
            try store.sealActiveSegment()
            try store.close()
        }
        let sealed = try #require(try StoreSurgery.manifest(dir.path).segments.first { $0.state == .sealed }?.id)
        let path = StoreSurgery.segment(dir.path, sealed)
        var bytes = try FileBytes.read(path)
        bytes = change > 0 ? bytes + Array(bytes.suffix(change)) : Array(bytes.dropLast(-change))
        try FileBytes.write(bytes, to: path)
        let index = try FileBytes.read(StorePaths(dir.path).indexFile(sealed))
        for readOnly in [false, true] {
            var options = FieldEditTests.options
            options.readOnly = readOnly
            let error = #expect(throws: StrataError.self) { try LogStore.open(at: dir.path, options: options, logger: .quiet) }
            #expect(error?.code == .corrupt)
            #expect(error?.path == path)
            #expect(error?.context["sealedLength"] != nil)
        }
        #expect(try FileBytes.read(path) == bytes)
        #expect(try FileBytes.read(StorePaths(dir.path).indexFile(sealed)) == index)
    }

    /// What a crash leaves is still removed: files numbered after the manifest (an
    /// unfinished roll or compaction) and files a swap retired (compaction's inputs
    /// whose deletion did not happen).
    @Test func crashLeftoversAreStillRemoved() throws {
        let dir = try TemporaryDirectory("untrusted-leftovers")
        defer { dir.remove() }
        var expected: [UInt64: [UInt8]] = [:]
        var retiredCopy: [(String, [UInt8])] = []
        do {
            let store = try LogStore.open(at: dir.path, options: FieldEditTests.options, logger: .quiet)
            expected = try ManifestCounterTests.fill(store, transactions: 10)
            let before = try StoreSurgery.manifest(dir.path).segments.filter { $0.state == .sealed }.map(\.id)
            for id in before { retiredCopy.append((StoreSurgery.segment(dir.path, id), try FileBytes.read(StoreSurgery.segment(dir.path, id)))) }
            expected.merge(try ManifestCounterTests.fill(store, from: 0, transactions: 3)) { $1 } // overwrites: garbage
            try store.compact(force: true)
            try store.close()
        }
        #expect(!(try StoreSurgery.manifest(dir.path).retiredSegments.isEmpty), "the swap names the files it retires")
        // Put the compacted inputs back, as if the crash came between swap and delete.
        for (path, bytes) in retiredCopy where !FileManager.default.fileExists(atPath: path) { try FileBytes.write(bytes, to: path) }
        // And a segment numbered after the manifest, as an unfinished roll leaves it.
        let next = try StoreSurgery.manifest(dir.path).nextSegmentID
        let orphan = StorePaths(dir.path).segment(next)
        try FileBytes.write(try FileBytes.read(retiredCopy[0].0), to: orphan)
        let store = try LogStore.open(at: dir.path, logger: .quiet)
        try ManifestCounterTests.expectAll(store, expected)
        try store.close()
        for (path, _) in retiredCopy where !(try StoreSurgery.manifest(dir.path).segments.contains { StoreSurgery.segment(dir.path, $0.id) == path }) {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path)")
        }
        #expect(!FileManager.default.fileExists(atPath: orphan))
    }

    /// A store at `path` holding key 1 = [1], closed.
    static func storeWithOneRecord(at path: String) throws {
        let store = try LogStore.open(at: path, logger: .quiet)
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: [1])
        try store.commit(batch)
        try store.close()
    }

    /// A symbolic link planted as the active segment: open must not follow it (it
    /// would read and truncate a file outside the store).
    @Test func aSymbolicLinkInTheStoreIsNotFollowed() throws {
        let dir = try TemporaryDirectory("untrusted-symlink")
        defer { dir.remove() }
        let store = dir.appending("s.strata")
        try Self.storeWithOneRecord(at: store)
        let active = StoreSurgery.segment(store, try FieldEditTests.activeID(store))
        let outside = dir.appending("outside.seg")
        // A copy of the segment with a torn tail: open would truncate it, if it followed the link.
        let victim = try FileBytes.read(active) + [1, 2, 3]
        try FileBytes.write(victim, to: outside)
        try FileManager.default.removeItem(atPath: active)
        try FileManager.default.createSymbolicLink(atPath: active, withDestinationPath: outside)
        #expect(throws: StrataError.self) { _ = try LogStore.open(at: store, logger: .quiet) }
        #expect(try FileBytes.read(outside) == victim, "the file outside the store is untouched")
    }

    /// A symbolic link planted as the LOCK file: taking the lock must not create or
    /// lock a file elsewhere.
    @Test func aLockFileThatIsALinkIsNotFollowed() throws {
        let dir = try TemporaryDirectory("untrusted-lock")
        defer { dir.remove() }
        let store = dir.appending("s.strata")
        try LogStore.open(at: store, logger: .quiet).close()
        let lock = StorePaths(store).lock
        let outside = dir.appending("elsewhere")
        try FileManager.default.removeItem(atPath: lock)
        try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: outside)
        #expect(throws: StrataError.self) { _ = try LogStore.open(at: store, logger: .quiet) }
        #expect(!FileManager.default.fileExists(atPath: outside))
    }

    /// A directory named like a segment or a blob file (a backup put there by mistake)
    /// is not the store's to remove: open leaves it, with what it holds.
    @Test func aDirectoryNamedLikeAStoreFileIsLeftAlone() throws {
        let dir = try TemporaryDirectory("untrusted-directory")
        defer { dir.remove() }
        let store = dir.appending("s.strata")
        try Self.storeWithOneRecord(at: store)
        let paths = StorePaths(store)
        let next = try StoreSurgery.manifest(store).nextSegmentID
        let planted = [paths.segment(next + 5), paths.blob(99)]
        for directory in planted {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            try FileBytes.write([7], to: directory + "/MANIFEST")
        }
        let s = try LogStore.open(at: store, logger: .quiet)
        #expect(try s.get(RecordKey(1))?.value == [1])
        try s.close()
        for directory in planted { #expect(try FileBytes.read(directory + "/MANIFEST") == [7]) }
    }

    /// A directory without MANIFEST whose `segments/` holds a directory is not an
    /// unfinished creation: creating a store there would remove the folder with it.
    @Test func noStoreIsCreatedOverADirectoryWhereStoreFilesGo() throws {
        let dir = try TemporaryDirectory("untrusted-create")
        defer { dir.remove() }
        let store = dir.appending("s.strata")
        try FileManager.default.createDirectory(atPath: store + "/segments/saved", withIntermediateDirectories: true)
        try FileBytes.write([7], to: store + "/segments/saved/notes")
        let error = #expect(throws: StrataError.self) { _ = try LogStore.open(at: store, logger: .quiet) }
        #expect(error?.code == .corrupt)
        #expect(try FileBytes.read(store + "/segments/saved/notes") == [7])
    }

    /// A code is matched as a case is, and spelled out as a static of `StrataError.Code`.
    @Test func aCodeMatchesAsACasePattern() {
        func fail() throws { throw StrataError(.corrupt, "damaged") }
        var matched = false
        do { try fail() } catch .io { Issue.record("matched another code") } catch .corrupt { matched = true } catch { Issue.record("not matched: \(error)") }
        #expect(matched)
        do { try fail() } catch StrataError.Code.corrupt { matched = false } catch { Issue.record("not matched: \(error)") }
        #expect(!matched)
    }

    /// A backup's destination given through `..`, `.` or a link to the store is inside
    /// the store all the same, and refused: the store's next open would take it for
    /// leftovers.
    @Test func aBackupIntoTheStoreIsRefusedHoweverItIsSpelled() throws {
        let dir = try TemporaryDirectory("untrusted-backup")
        defer { dir.remove() }
        let store = dir.appending("s.strata")
        try FileManager.default.createDirectory(atPath: dir.appending("other"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: dir.appending("link"), withDestinationPath: store)
        let s = try LogStore.open(at: store, logger: .quiet)
        defer { try? s.close() }
        for destination in [store + "/segments/000099.seg", dir.appending("other/../s.strata/segments/x"), store + "/./blobs/x", dir.appending("link/index/y"), dir.appending("link")] {
            let error = #expect(throws: StrataError.self) { _ = try s.backup(to: destination) }
            #expect(error?.code == .invalidArgument, "\(destination)")
        }
        #expect(!LogStore.location(dir.appending("other/backup"), liesInStoreAt: store))
        #expect(LogStore.location(dir.appending("other/../link/x"), liesInStoreAt: store))
    }

    /// Every committed store (each format) opens with the new checks on the scanning path
    /// (hint and index files removed), and the engine still reads every key — the stricter records
    /// block and sequence checks refuse nothing a Strata writer wrote.
    @Test func everyCommittedStoreOpensWhenScanned() throws {
        let root = FixturePaths.store("")
        let formats = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasPrefix("format-") }
        #expect(!formats.isEmpty)
        for format in formats {
            for name in try FileManager.default.contentsOfDirectory(atPath: root + "/" + format) where name.hasSuffix(".strata") {
                let dir = try TemporaryDirectory("fixture-scan")
                defer { dir.remove() }
                let copy = dir.appending(name)
                try FileBytes.copyDirectory(root + "/" + format + "/" + name, to: copy)
                let hinted = try LogStore.open(at: copy, logger: .quiet)
                let keys = try hinted.keys()
                let records = try hinted.get(keys)
                try hinted.close()
                try StoreSurgery.removeHints(copy)
                let scanned = try LogStore.open(at: copy, logger: .quiet)
                #expect(try scanned.keys() == keys, "\(format)/\(name)")
                #expect(try scanned.get(keys) == records, "\(format)/\(name)")
                #expect(try scanned.verify().isSound, "\(format)/\(name)")
                try scanned.close()
            }
        }
    }
}
