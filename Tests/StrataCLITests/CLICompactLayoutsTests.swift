import Foundation
import StrataTestSupport
import Testing

/// `strata compact` on a store migrated in place (the committed `tasks-layouts`, records
/// of three layouts): it opens the store as an object store, so compaction writes the
/// records of older layouts it copies in the current one; `--layouts` first writes them
/// all again and drops the older layouts from the table.
@Suite struct CLICompactLayoutsTests {
    @Test func compactWithLayoutsLeavesOneLayoutAndTheSameTasks() throws {
        let dir = try TemporaryDirectory("cli-compact-layouts")
        defer { dir.remove() }
        let store = dir.appending("tasks-layouts.strata")
        try FileManager.default.copyItem(atPath: FixturePaths.store("format-3/tasks-layouts.strata"), toPath: store)
        let before = try StrataProcess.run(["export", store, "--entity", "Task"], in: dir.path)
        #expect(before.status == 0, "\(before.stderr)")

        let compact = try StrataProcess.run(["compact", store, "--force", "--layouts"], in: dir.path)
        #expect(compact.status == 0, "\(compact.stderr)")
        // 5 v1 tasks (one changed at v2 is of layout 2) and 4 v2 tasks are of older layouts.
        #expect(compact.stdout.contains("rewrote 9 records of older layouts"), "\(compact.stdout)")

        let verify = try StrataProcess.run(["verify", store], in: dir.path)
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        let after = try StrataProcess.run(["export", store, "--entity", "Task"], in: dir.path)
        #expect(Set(after.stdout.split(separator: "\n")) == Set(before.stdout.split(separator: "\n")))
        // The layout table (JSON, keys sorted) lists one layout for Task, layout 3.
        let manifest = String(decoding: try FileBytes.read(store + "/MANIFEST"), as: UTF8.self)
        #expect(manifest.contains(#""id":3}],"nextFieldID""#) && !manifest.contains(#"},{"fields""#), "\(manifest)")
    }
}
