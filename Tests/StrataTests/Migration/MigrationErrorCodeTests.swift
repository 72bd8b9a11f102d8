import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataLog

/// Each kind of migration failure has its own code and the context that locates it,
/// on a real store that a failure leaves unchanged byte for byte.
@Suite struct MigrationErrorCodeTests {
    static var v1: ObjectModel { get throws { try ObjectModel(version: "v1") {
        Entity("Book") {
            Attribute("title", .string)
            Attribute("pages", .int64, optional: true)
        }
    } } }
    static var v2: ObjectModel { get throws { try ObjectModel(version: "v2") {
        Entity("Book") {
            Attribute("title", .string)
            Attribute("pages", .int64, optional: true)
            Attribute("isbn", .string, optional: true)
        }
    } } }
    /// A new non-optional attribute without a default: cannot be inferred.
    static var refused: ObjectModel { get throws { try ObjectModel(version: "v2-refused") {
        Entity("Book") {
            Attribute("title", .string)
            Attribute("pages", .int64, optional: true)
            Attribute("isbn", .string)
        }
    } } }

    static func seed(_ path: String, model: ObjectModel? = nil) throws {
        try InferredStore.create(at: path, model: model ?? Self.v1) { context in
            for title in ["Dune", "Emma", "Ulysses"] {
                try context.insert("Book").setValue(title, forKey: "title")
            }
        }
    }

    /// Opens with `migration`, expects `code`, the directory unchanged, and the store
    /// still opening at v1 with its three books.
    static func expectFailure(_ path: String, to model: ObjectModel, _ migration: StoreMigration, code: StrataError.Code,
                              sourceLocation: SourceLocation = #_sourceLocation) throws -> StrataError? {
        let before = try DirectorySnapshot(path)
        let error = #expect(throws: StrataError.self, sourceLocation: sourceLocation) {
            _ = try ObjectStore(at: path, model: model, options: InferredStore.options(migration))
        }
        #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(try DirectorySnapshot(path) == before, "a failed migration wrote nothing", sourceLocation: sourceLocation)
        let store = try ObjectStore(at: path, model: Self.v1)
        #expect(try store.newContext().keyedObjects("Book", by: "title").keys.sorted() == ["Dune", "Emma", "Ulysses"],
                sourceLocation: sourceLocation)
        try store.close()
        return error
    }

    @Test func anInferenceRefusalNamesEntityPropertyAndBothHashesWhereverItIsFound() throws {
        let (v1, v2, refused) = (try Self.v1, try Self.v2, try Self.refused)
        _ = (v1, v2, refused)
        let dir = try TemporaryDirectory("codes-inference")
        defer { dir.remove() }
        try Self.seed(dir.path)
        let inferred = try Self.expectFailure(dir.path, to: refused, .inferred, code: .migrationInferenceRefused)
        #expect(inferred?.context["entity"] == "Book")
        #expect(inferred?.context["property"] == "isbn")
        #expect(inferred?.context["reason"] == "new non-optional attribute without a default value")
        #expect(inferred?.context["sourceHash"] == v1.versionHash)
        #expect(inferred?.context["destinationHash"] == refused.versionHash)

        // The same refusal found by a plan's validation carries the same context.
        let plan = MigrationPlan(models: [v1, refused], stages: [.lightweight(from: v1, to: refused)])
        let planned = try Self.expectFailure(dir.path, to: refused, .plan(plan), code: .migrationInferenceRefused)
        for key in ["entity", "property", "reason", "sourceHash", "destinationHash", "sourceVersion", "destinationVersion", "entities"] {
            #expect(planned?.context[key] != nil && planned?.context[key] == inferred?.context[key], "\(key)")
        }
        #expect(planned?.context["stage"] == "'v1' → 'v2-refused'")
        #expect(planned?.message.contains("Book.isbn") == true)
        #expect((try? plan.validate()) == nil)
        do { try plan.validate() } catch { #expect(StrataError.Code.migrationInferenceRefused ~= error) }
    }

    @Test func aStoreVersionThePlanDoesNotListIsNoMigrationPathNamingTheStoresVersion() throws {
        let (v1, v2, refused) = (try Self.v1, try Self.v2, try Self.refused)
        _ = (v1, v2, refused)
        let dir = try TemporaryDirectory("codes-nopath")
        defer { dir.remove() }
        try Self.seed(dir.path)
        let v3 = try ObjectModel(version: "v3") {
            Entity("Book") {
                Attribute("title", .string)
                Attribute("isbn", .string, optional: true)
            }
        }
        // The plan starts at v2: a v1 store has no way on.
        let plan = MigrationPlan(models: [v2, v3], stages: [.lightweight(from: v2, to: v3)])
        let error = try Self.expectFailure(dir.path, to: v3, .plan(plan), code: .noMigrationPath)
        #expect(error?.context["storeVersion"] == "v1", "\(String(describing: error))")
        #expect(error?.context["storeHash"] == v1.versionHash)
        #expect(error?.context["knownVersions"] == "v2,v3")
        #expect(error?.message.contains("'v1'") == true, "\(String(describing: error?.message))")
        do { _ = try plan.path(from: v1); Issue.record("expected noMigrationPath") } catch { #expect(StrataError.Code.noMigrationPath ~= error) }

        // A plan whose newest model is not the one the store opens with.
        let wrongEnd = MigrationPlan(models: [v1, v2], stages: [.lightweight(from: v1, to: v2)])
        let end = try Self.expectFailure(dir.path, to: v3, .plan(wrongEnd), code: .noMigrationPath)
        #expect(end?.context["storeVersion"] == "v1" && end?.context["modelVersion"] == "v3")
    }

    final class RefusingPolicy: EntityMigrationPolicy, @unchecked Sendable {
        override func createDestinationInstances(forSource source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createDestinationInstances(forSource: source, mapping: mapping, manager: manager)
            if try source.string("title") == "Emma" {
                throw StrataError(.invalidArgument, "Emma has no ISBN", context: ["property": "isbn"])
            }
        }
    }

    @Test func aPolicyThatThrowsIsAHookFailureNamingHookMappingAndObject() throws {
        let (v1, v2, refused) = (try Self.v1, try Self.v2, try Self.refused)
        _ = (v1, v2, refused)
        let dir = try TemporaryDirectory("codes-policy")
        defer { dir.remove() }
        try Self.seed(dir.path)
        var mapping = try MappingModel.inferred(from: v1, to: v2)
        mapping.entityMappings[0].kind = .custom
        mapping.entityMappings[0].policyFactory = { RefusingPolicy() }
        let error = try Self.expectFailure(dir.path, to: v2, .mappings([mapping], models: [v2]), code: .migrationHookFailed)
        #expect(error?.context["hook"] == "createDestinationInstances")
        #expect(error?.context["entityMapping"] == "BookToBook")
        #expect(error?.context["entity"] == "Book")
        #expect(error?.context["object"] == "Book/2", "\(String(describing: error))")
        #expect(error?.context["property"] == "isbn")
        #expect(error?.context["underlyingCode"] == "invalidArgument")
        #expect(error?.message.contains("Emma has no ISBN") == true)
    }

    @Test func aStageHookThatThrowsIsAHookFailureNamingTheStage() throws {
        let (v1, v2, refused) = (try Self.v1, try Self.v2, try Self.refused)
        _ = (v1, v2, refused)
        let dir = try TemporaryDirectory("codes-stage")
        defer { dir.remove() }
        try Self.seed(dir.path)
        for hook in ["willMigrate", "didMigrate"] {
            let plan = MigrationPlan(models: [v1, v2], stages: [
                .custom(from: v1, to: v2, willMigrate: { _ in
                    if hook == "willMigrate" { throw StrataError(.invalidArgument, "not today") }
                    return .empty
                }, didMigrate: { _, _ in
                    if hook == "didMigrate" { throw StrataError(.invalidArgument, "not today") }
                }),
            ])
            let error = try Self.expectFailure(dir.path, to: v2, .plan(plan), code: .migrationHookFailed)
            #expect(error?.context["hook"] == hook)
            #expect(error?.context["stage"] == "'v1' → 'v2'")
            #expect(error?.message.contains("not today") == true)
        }
    }

    @Test func anObjectTheNewModelRefusesIsAValidationFailureNamingEntityPropertyAndObject() throws {
        let (v1, v2, refused) = (try Self.v1, try Self.v2, try Self.refused)
        _ = (v1, v2, refused)
        let dir = try TemporaryDirectory("codes-validation")
        defer { dir.remove() }
        try Self.seed(dir.path)
        // A mapping that leaves the required title empty for one book.
        var mapping = try MappingModel.inferred(from: v1, to: v2)
        mapping.entityMappings[0].kind = .custom
        mapping.entityMappings[0].attributeMappings = mapping.entityMappings[0].attributeMappings.map { property in
            guard property.name == "title" else { return property }
            return PropertyMapping(name: "title", value: .closure { book in
                try book.string("title") == "Ulysses" ? .null : book.value(forKey: "title")
            })
        }
        let error = try Self.expectFailure(dir.path, to: v2, .mappings([mapping], models: [v2]), code: .migrationValidationFailed)
        #expect(error?.context["entity"] == "Book")
        #expect(error?.context["property"] == "title")
        #expect(error?.context["object"] == "Book/3")
        #expect(error?.context["count"] == "1")
        #expect(error?.message.contains("Book/3.title") == true, "\(String(describing: error?.message))")
    }
}
