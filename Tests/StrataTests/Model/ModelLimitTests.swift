import Foundation
import Testing
import StrataLog
@testable import Strata

/// Hostile model files: deep inheritance chains are refused after a linear walk (a
/// walk up every chain checking an array would be quadratic), wide models load, and
/// deep JSON is an error, not a crash.
@Suite("Model file limits")
struct ModelLimitTests {
    /// A model file of `count` entities; `parent(i)` names entity i's parent.
    private static func modelFile(count: Int, parent: (Int) -> Int?) -> Data {
        var entities: [String] = []
        entities.reserveCapacity(count)
        for i in 0..<count {
            let parentField = parent(i).map { #", "parent": "E\#($0)""# } ?? ""
            entities.append(#"{"name": "E\#(i)"\#(parentField), "properties": [{"kind": "attribute", "name": "p\#(i)", "type": "string", "optional": true}]}"#)
        }
        return Data(#"{"formatVersion": 1, "version": "1", "entities": [\#(entities.joined(separator: ","))]}"#.utf8)
    }

    private static func expectDepthLimit(_ data: Data) {
        expectDepthLimit { _ = try ObjectModel(jsonData: data) }
    }

    private static func expectDepthLimit(_ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected limitExceeded")
        } catch let error as StrataError {
            #expect(error.code == .limitExceeded, "\(error)")
            #expect(error.context["limit"] == "inheritanceDepth")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func deepInheritanceChainsAreRefused() {
        // Listed root first and leaf first: the walk must be bounded both ways.
        let depth = 10_000
        Self.expectDepthLimit(Self.modelFile(count: depth) { $0 == 0 ? nil : $0 - 1 })
        Self.expectDepthLimit(Self.modelFile(count: depth) { $0 == depth - 1 ? nil : $0 + 1 })
    }

    /// 100,000 levels, built in code (a model file of that size spends its time in the
    /// JSON decoder, which the 10,000-level files above already go through).
    @Test func aHundredThousandLevelsAreRefused() throws {
        let depth = 100_000
        let entities = (0..<depth).map { i in
            Entity("E\(i)", parent: i == 0 ? nil : "E\(i - 1)").entityDescription
        }
        Self.expectDepthLimit { _ = try ObjectModel(version: "1", entities: entities) }
        Self.expectDepthLimit { _ = try ObjectModel(version: "1", entities: entities.reversed()) }
    }

    @Test func chainAtTheLimitLoads() throws {
        let depth = ObjectModel.maximumInheritanceDepth
        let model = try ObjectModel(jsonData: Self.modelFile(count: depth) { $0 == 0 ? nil : $0 - 1 })
        let leaf = try #require(model.entity(named: "E\(depth - 1)"))
        #expect(leaf.ancestorNames.count == depth - 1)
        #expect(leaf.properties.count == depth)
        Self.expectDepthLimit(Self.modelFile(count: depth + 1) { $0 == 0 ? nil : $0 - 1 })
    }

    /// Many chains that meet: each entity is measured once, and the depth that counts
    /// is the longest chain's.
    @Test func branchesShareTheirMeasuredAncestors() throws {
        let depth = ObjectModel.maximumInheritanceDepth
        // E0 … E(depth-1) is one chain; E(depth)… each hang off its deepest entity.
        let model = try ObjectModel(jsonData: Self.modelFile(count: depth + 500) { i in
            i == 0 ? nil : (i < depth ? i - 1 : depth - 2)
        })
        #expect(model.entities.count == depth + 500)
        Self.expectDepthLimit(Self.modelFile(count: depth + 500) { i in i == 0 ? nil : (i < depth ? i - 1 : depth - 1) })
    }

    @Test func tenThousandFlatEntitiesLoad() throws {
        let model = try ObjectModel(jsonData: Self.modelFile(count: 10_000) { _ in nil })
        #expect(model.entities.count == 10_000)
        let wide = try ObjectModel(jsonData: Self.modelFile(count: 10_000) { $0 == 0 ? nil : 0 })
        #expect(wide.entity(named: "E0")?.allSubentityNames.count == 9_999)
    }

    @Test func cyclesInLongChainsAreStillFound() {
        // E0 → E1 → … → E49 → E0.
        let data = Self.modelFile(count: 50) { ($0 + 1) % 50 }
        #expect(throws: StrataError.self) { _ = try ObjectModel(jsonData: data) }
        do {
            _ = try ObjectModel(jsonData: data)
        } catch let error as StrataError {
            #expect(error.code == .invalidModel)
            #expect(error.message.contains("inheritance cycle"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func jsonNestedDeeplyIsAnErrorNotACrash() {
        let depth = 100_000
        let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let data = Data(#"{"formatVersion": 1, "version": "1", "entities": [], "x": \#(nested)}"#.utf8)
        #expect(throws: StrataError.self) { _ = try ObjectModel(jsonData: data) }
        let inDefault = Data(#"{"formatVersion": 1, "version": "1", "entities": [{"name": "E", "properties": [{"kind": "attribute", "name": "c", "type": "composite", "default": \#(nested)}]}]}"#.utf8)
        #expect(throws: StrataError.self) { _ = try ObjectModel(jsonData: inDefault) }
    }

    @Test func longNamesAreRefusedClearly() {
        let long = String(repeating: "a", count: 10 << 20)
        let data = Data(#"{"formatVersion": 1, "version": "1", "entities": [{"name": "\#(long)", "properties": []}]}"#.utf8)
        do {
            _ = try ObjectModel(jsonData: data)
            Issue.record("expected an error")
        } catch let error as StrataError {
            #expect(error.code == .invalidModel)
            #expect(error.description.count < 2_000, "the message must not quote 10 MiB")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
