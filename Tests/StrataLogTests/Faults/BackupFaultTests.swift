import Testing
import StrataTestSupport
@testable import StrataLog

/// Each write, fsync, rename, link and create of a backup failed in turn: the backup
/// throws the I/O error, nothing is left where it was going (neither the destination
/// nor its `.partial-` directory), and the source store goes on reading and writing.
@Suite struct BackupFaultTests {
    static let operations: [Fault.Operation] = [.write, .sync, .syncDirectory, .rename, .link, .create, .createDirectory]

    @Test(arguments: [false, true])
    func everyFailingOperationLeavesNothingAtTheDestination(linksRefused: Bool) throws {
        let memory = InMemoryFileSystem()
        let fs = FaultInjectingFileSystem(wrapping: memory)
        // EXDEV on every link: the backup copies every file instead, so each of their
        // writes and fsyncs is failed in turn too.
        if linksRefused { fs.inject(.fail(.link, errno: 18 /* EXDEV */, matching: "/backups")) }
        try fs.createDirectory("/backups")
        var options = BackupTests.options
        options.blobFileSizeLimit = 1 << 10
        let store = try LogStore.open(at: "/store", options: options, fileSystem: fs, logger: .quiet)
        defer { try? store.close() }
        for n in UInt64(1)...120 { _ = try BackupTests.commitNumbered(store, n) }
        let sealed = store.state.withLock { $0.manifest.segments.count > 2 && $0.manifest.blobFiles.count > 1 }
        #expect(sealed, "the store has sealed segments and blob files to link or copy")

        // A backup that fails nowhere, to count what one does. The source is idle, so
        // every operation counted is the backup's.
        fs.resetCounts()
        _ = try store.backup(to: "/backups/probe")
        let counts = fs.counts
        #expect((counts[.write] ?? 0) > 0 && (counts[.sync] ?? 0) > 0 && (counts[.rename] ?? 0) == 2)
        #expect(linksRefused || (counts[.link] ?? 0) > 0)

        var attempts = 0
        for operation in Self.operations {
            let total = counts[operation] ?? 0
            // With links refused, the one link tried fails by the EXDEV fault first.
            if total == 0 || (linksRefused && operation == .link) { continue }
            for n in 1...total {
                let fault = fs.inject(.fail(operation, matching: "/backups", on: .nth(n)))
                let destination = "/backups/copy-\(operation)-\(n)"
                let error = #expect(throws: StrataError.self, "\(operation) #\(n)") { try store.backup(to: destination) }
                fs.removeFault(fault)
                #expect(fs.timesFired(fault) == 1, "\(operation) #\(n)")
                #expect(error?.code == .io && error?.errno == 5, "\(operation) #\(n): \(String(describing: error))")
                #expect(error?.context["backup"] == destination)
                // Nothing at the destination, no scratch directory beside it.
                #expect(try fs.contentsOfDirectory("/backups") == ["probe"], "\(operation) #\(n)")
                #expect(!fs.exists(destination + "/MANIFEST"))
                // The source keeps working: writable, readable.
                #expect(throws: Never.self) { try store.checkWritable() }
                #expect(try store.get(RecordKey(0))?.value == Array("120".utf8))
                attempts += 1
            }
        }
        #expect(attempts > 10)
        #expect(try store.verify().isSound)
        #expect(try BackupTests.commitNumbered(store, 121) == 121)

        let report = try store.backup(to: "/backups/final")
        #expect(report.sequence == 121)
        for path in ["/backups/probe", "/backups/final"] {
            let copy = try LogStore.open(at: path, options: options, fileSystem: fs, logger: .quiet)
            defer { try? copy.close() }
            #expect(try copy.verify().isSound)
            try BackupTests.expectNumbered(copy, through: path.hasSuffix("probe") ? 120 : 121, probeBeyond: 121)
        }
    }
}
