import Foundation
@testable import Strata
import StrataLog
import StrataTestSupport
import Testing

/// A store opened read-only beside its writer (another process, or here another
/// instance): `refresh()` takes in the writer's commits, the feed follows them by
/// polling, and a migration by the writer is refused rather than misread.
@Suite struct ReaderStoreTests {
    static func options(readOnly: Bool) -> StoreOptions {
        var options = StoreOptions()
        options.historyTracking = true
        options.log.readOnly = readOnly
        options.refreshInterval = .milliseconds(5)
        return options
    }

    @Test func aReaderFollowsTheWriterAndRefusesAMigratedStore() async throws {
        let directory = try TemporaryDirectory("reader")
        defer { directory.remove() }
        let path = directory.appending("store")
        let writer = try ObjectStore(at: path, model: try HistoryTests.model(), options: Self.options(readOnly: false))
        let context = writer.newContext()
        _ = try HistoryTests.insert(context, "Ada")
        try context.save()
        let reader = try ObjectStore(at: path, model: try HistoryTests.model(), options: Self.options(readOnly: true))
        defer { try? reader.close() }
        let start = reader.currentHistoryToken
        #expect(try reader.newContext().count(for: FetchRequest(entityName: "Employee")) == 1)

        // The feed polls: it sees commits made after it started waiting.
        let following = Task {
            var seen: [UInt64] = []
            for try await transaction in reader.changes(after: start) {
                seen.append(transaction.token.sequence)
                if seen.count == 3 { break }
            }
            return seen
        }
        var expected: [UInt64] = []
        for name in ["Bob", "Cy", "Di"] {
            _ = try HistoryTests.insert(context, name)
            try context.save()
            expected.append(writer.currentHistoryToken.sequence)
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await following.value == expected)
        #expect(try reader.newContext().count(for: FetchRequest(entityName: "Employee")) == 4)
        #expect(try reader.refresh() == false)

        // The writer reopens the store migrated to a model with one more attribute.
        try await writer.close()
        var migrating = Self.options(readOnly: false)
        migrating.migration = .inferred
        let migrated = try ObjectStore(at: path, model: try HistoryTests.model(level: true), options: migrating)
        defer { try? migrated.close() }
        #expect { try reader.refresh() } throws: { ($0 as? StrataError)?.code == .incompatibleModel }
        // Every time: the reader keeps the state it had and never reads the new layouts.
        #expect { try reader.refresh() } throws: { ($0 as? StrataError)?.code == .incompatibleModel }
        #expect(try reader.newContext().count(for: FetchRequest(entityName: "Employee")) == 4)
    }
}
