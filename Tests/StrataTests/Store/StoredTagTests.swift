@testable import Strata
import StrataLog
import Testing

/// A stored schema that gives two entities (or an entity and an edge relation) one tag
/// is damage: open refuses it with `.corrupt` instead of trapping on the duplicate.
@Suite struct StoredTagTests {
    @Test func twoEntitiesUnderOneTagAreRefused() throws {
        let model = try ContextFixtures.company()
        #expect {
            _ = try StoreSchema(model: model, existing: ["Department": 1, "Employee": 1])
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .corrupt && error?.message.contains("the same tag 1") == true
        }
    }

    @Test func anEntityAndAnEdgeUnderOneTagAreRefused() throws {
        let model = try ContextFixtures.company()
        #expect {
            _ = try StoreSchema(model: model, existing: ["Department": 1, "Employee": 2], existingEdges: ["Department.employees": 2])
        } throws: { ($0 as? StrataError)?.code == .corrupt }
    }

    @Test func distinctTagsOpen() throws {
        let model = try ContextFixtures.company()
        let schema = try StoreSchema(model: model, existing: ["Department": 1, "Employee": 2])
        #expect(schema.tags == ["Department": 1, "Employee": 2])
    }
}
