import Foundation
import Testing
@testable import StrataLog
import StrataTestSupport

/// `employees-lifecycle-v1` exists to hold what an imported fixture cannot: this
/// checks that each format's copy really does, so the opening and migration tests that
/// run over it (`EmployeesFixtureTests`) cover sealed segments, hint or index files, a
/// compaction's output, tombstones and several blob files.
@Suite struct LifecycleFixtureTests {
    @Test(arguments: FixtureStore.formatFolders)
    func holdsEveryKindOfFileAStoreGathersOverItsLife(folder: String) throws {
        let path = FixtureStore(folder: folder, name: "employees-lifecycle-v1").path
        let manifest = try Manifest.decode(try FileBytes.read(path + "/MANIFEST"), path: path + "/MANIFEST")
        let sealed = manifest.segments.filter { $0.state == .sealed }
        let active = try #require(manifest.activeSegment, "\(folder): no active segment")

        #expect(sealed.count >= 3, "\(folder): \(sealed.count) sealed segments")
        #expect(manifest.segments.map(\.id).min() ?? 0 > 1,
                "\(folder): the first segments are still there, so no compaction output replaced them")
        #expect(manifest.blobFiles.count >= 2, "\(folder): \(manifest.blobFiles.count) blob files")
        #expect(manifest.blobFiles.contains { $0.state == .sealed }, "\(folder): no sealed blob file (blob garbage collection writes one)")

        var indexedTombstones = 0
        for segment in sealed {
            if manifest.version == 1 {
                let hintPath = path + "/index/" + String(format: "%06d.hint", segment.id)
                let hint = try HintFile.decode(try FileBytes.read(hintPath), path: hintPath)
                #expect(hint.segmentID == segment.id)
                indexedTombstones += hint.entries.filter(\.isTombstone).count
            } else {
                let indexPath = path + "/index/" + String(format: "%06d.idx", segment.id)
                let index = try IndexFile(file: ByteArrayFile(path: indexPath, bytes: try FileBytes.read(indexPath)), segmentID: segment.id,
                                          storeID: manifest.storeID, cache: BlockCache(budget: 1 << 20))
                #expect(try index.readAll().entries.count == Int(index.footer.entryCount))
                indexedTombstones += Int(index.footer.tombstoneCount)
            }
        }
        #expect(indexedTombstones > 0, "\(folder): no sealed segment keeps a tombstone")

        let file = try POSIXFileSystem().open(path + "/segments/" + String(format: "%06d.seg", active.id), mode: .readOnly)
        defer { try? file.close() }
        let scan = try SegmentScanner(file: file, segmentID: active.id, statistics: nil).scan()
        #expect(scan.damage == nil)
        #expect(scan.records.contains { $0.record.isTombstone }, "\(folder): the active segment holds no tombstone")
        #expect(scan.records.contains { !$0.record.isTombstone }, "\(folder): the active segment holds no put")
    }
}
