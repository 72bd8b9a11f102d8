import Foundation
import StrataLog
import StrataTestSupport
import Testing

/// `strata copy SOURCE DEST` between directories: a copy that fails part-way leaves no
/// destination behind, so the same command can be run again.
@Suite struct CLICopyTests {
    @Test func aCopyThatFailsLeavesNoDestination() throws {
        let dir = try TemporaryDirectory("cli-copy-fails")
        defer { dir.remove() }
        let source = dir.appending("s.strata")
        let store = try LogStore.open(at: source)
        var random = SeededRandom(seed: 30)
        let payload = (0..<8_192).map { _ in UInt8.random(in: 0...255, using: &random) }  // not compressible
        var batch = WriteBatch()
        for key in 1...40 as ClosedRange<UInt64> {
            batch.put(RecordKey(key), value: Array("record \(key)".utf8),
                      blobs: key == 30 ? [try store.writeBlob(payload)] : [])
        }
        try store.commit(batch)
        try store.close()
        // A byte of the blob's payload flipped: the blob's checksum no longer holds, so
        // the copy fails when it reaches record 30.
        let blobFile = dir.appending("s.strata/blobs/000001.blob")
        var bytes = try FileBytes.read(blobFile)
        bytes[bytes.count - 100] ^= 0xFF
        try FileBytes.write(bytes, to: blobFile)

        let destination = dir.appending("copy.strata")
        let failed = try StrataProcess.run(["copy", source, destination], in: dir.path)
        #expect(failed.status == 1, "\(failed.stdout)\(failed.stderr)")
        #expect(failed.stderr.contains("corrupt"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: destination))

        // Mended (the payload flipped back), the same command succeeds.
        bytes[bytes.count - 100] ^= 0xFF
        try FileBytes.write(bytes, to: blobFile)
        let copied = try StrataProcess.run(["copy", source, destination], in: dir.path)
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(copied.stdout.contains("copied 40 records and 1 blobs"), "\(copied.stdout)")
        let verify = try StrataProcess.run(["verify", destination], in: dir.path)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }
}
