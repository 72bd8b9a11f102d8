import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// Sort key paths are checked once per store (`CheckedSortKeys`): a valid key path is
/// kept and not checked again, a misspelt one fails every fetch with the same error,
/// and the set is bounded.
@Suite struct CheckedSortKeysTests {
    @Test func validKeysAreCheckedOnceAndMisspeltOnesEveryTime() throws {
        try FetchFixtures.withStore(.inMemory) { store in
            try FetchFixtures.populate(store)
            let context = store.newContext()
            var sorted = FetchRequest(entityName: "Employee")
            sorted.sortKeys = [SortKey("name"), SortKey("age", ascending: false)]
            for _ in 0..<3 { #expect(try context.fetch(sorted).count == 5) }
            #expect(store.checkedSortKeys.count == 2)
            var misspelt = FetchRequest(entityName: "Employee")
            misspelt.sortKeys = [SortKey("nmae")]
            for _ in 0..<2 {
                let error = #expect(throws: StrataError.self) { try context.fetch(misspelt) }
                #expect(error?.code == .unknownKeyPath)
            }
            #expect(store.checkedSortKeys.count == 2)
            // The same key path of another entity is checked for that entity.
            var other = FetchRequest(entityName: "Department")
            other.sortKeys = [SortKey("age")]
            #expect(throws: StrataError.self) { try context.fetch(other) }
        }
    }

    @Test func theSetIsBounded() throws {
        let checked = CheckedSortKeys()
        var runs = 0
        for i in 0..<1_500 { checked.check("k\(i)", of: "E") { runs += 1 } }
        checked.check("k1499", of: "E") { runs += 1 }
        #expect(runs == 1_500)
        #expect(checked.count <= 1_024)
        #expect(checked.count > 0)
    }
}
