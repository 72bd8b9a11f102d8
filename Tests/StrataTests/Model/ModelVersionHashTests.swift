import Foundation
import Testing
@testable import Strata
import StrataScenarios

@Suite("Model version hash")
struct ModelVersionHashTests {
    /// A task model with every knob, to vary one at a time.
    struct Knobs {
        var order = false
        var titleType = AttributeType.string
        var doneDefault: Value? = .bool(false)
        var titleRules = false
        var dueOptional = true
        var extraAttribute = false
        var transientAttribute = false
        var indexed = false
        var renamed = false
        var deleteRule = DeleteRule.nullify
        var counts = false
        var toManyOrdered = false
        var external = false
        var abstractBase = false
        var version = "1"
    }

    static func model(_ knobs: Knobs) throws -> ObjectModel {
        var task: [PropertyDescription] = [
            .attribute(AttributeDescription(
                name: "title", type: knobs.titleType, isIndexed: knobs.indexed,
                renamingIdentifier: knobs.renamed ? "name" : nil,
                minimumLength: knobs.titleRules ? 1 : nil, maximumLength: knobs.titleRules ? 80 : nil,
                pattern: knobs.titleRules ? "[a-z]+" : nil)),
            .attribute(AttributeDescription(name: "done", type: .bool, defaultValue: knobs.doneDefault)),
            .attribute(AttributeDescription(name: "due", type: .date, isOptional: knobs.dueOptional)),
            .attribute(AttributeDescription(
                name: "attachment", type: .binary, isOptional: true, allowsExternalStorage: knobs.external)),
            .relationship(RelationshipDescription(
                name: "list", destinationEntityName: "List", inverseName: "tasks",
                deleteRule: knobs.deleteRule)),
        ]
        if knobs.extraAttribute {
            task.append(.attribute(AttributeDescription(name: "latitude", type: .double, isOptional: true)))
        }
        if knobs.transientAttribute {
            task.append(.attribute(AttributeDescription(name: "scratch", type: .string, isTransient: true)))
        }
        var list: [PropertyDescription] = [
            .attribute(AttributeDescription(name: "name", type: .string)),
            .relationship(RelationshipDescription(
                name: "tasks", destinationEntityName: "Task", inverseName: "list", isToMany: true,
                isOrdered: knobs.toManyOrdered, deleteRule: .cascade,
                minimumCount: knobs.counts ? 1 : nil, maximumCount: knobs.counts ? 99 : nil)),
        ]
        if knobs.order {
            task.reverse()
            list.reverse()
        }
        var entities = [
            EntityDescription(name: "Task", parentName: "Item", properties: task),
            EntityDescription(name: "List", parentName: "Item", properties: list),
            EntityDescription(name: "Item", isAbstract: knobs.abstractBase, properties: [
                .attribute(AttributeDescription(name: "created", type: .date, isOptional: true)),
            ]),
        ]
        if knobs.order { entities.reverse() }
        return try ObjectModel(version: knobs.version, entities: entities)
    }

    static func hash(_ change: (inout Knobs) -> Void) throws -> String {
        var knobs = Knobs()
        change(&knobs)
        return try model(knobs).versionHash
    }

    @Test func isHexSHA256() throws {
        let hash = try Self.hash { _ in }
        #expect(hash.count == 64)
        #expect(hash.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test func reorderingDeclarationsKeepsTheHash() throws {
        let base = try Self.model(Knobs())
        let reordered = try Self.model(Knobs(order: true))
        #expect(reordered.versionHash == base.versionHash)
        #expect(reordered.entityVersionHashes == base.entityVersionHashes)
        #expect(reordered.indexHash == base.indexHash)
        // The models differ (declaration order is kept), but not for storage.
        #expect(reordered != base)
    }

    @Test func whatDoesNotAffectStorageKeepsTheHash() throws {
        let base = try Self.hash { _ in }
        #expect(try Self.hash { $0.doneDefault = .bool(true) } == base)
        #expect(try Self.hash { $0.doneDefault = nil } == base)
        #expect(try Self.hash { $0.titleRules = true } == base)
        #expect(try Self.hash { $0.renamed = true } == base)
        #expect(try Self.hash { $0.deleteRule = .cascade } == base)
        #expect(try Self.hash { $0.counts = true } == base)
        #expect(try Self.hash { $0.transientAttribute = true } == base)
        #expect(try Self.hash { $0.version = "2" } == base)
    }

    @Test func whatAffectsStorageChangesTheHash() throws {
        let base = try Self.hash { _ in }
        let changed = [
            try Self.hash { $0.extraAttribute = true },
            try Self.hash { $0.titleType = .uuid },
            try Self.hash { $0.dueOptional = false },
            try Self.hash { $0.toManyOrdered = true },
            try Self.hash { $0.external = true },
            try Self.hash { $0.abstractBase = true },
            // Since version 2 of the canonical text, an index or a uniqueness
            // constraint is part of the store's schema.
            try Self.hash { $0.indexed = true },
        ]
        for hash in changed { #expect(hash != base) }
        #expect(Set(changed).count == changed.count)
    }

    /// The index flags change `versionHash` as well as `indexHash` (since version 2 of
    /// the canonical text), so a store does not open with a new `unique` without a
    /// migration and take duplicates; the version 1 hash, which older stores record,
    /// leaves them out.
    @Test func indexFlagsChangeTheVersionHashAndTheIndexHash() throws {
        let base = try Self.model(Knobs())
        let indexed = try Self.model(Knobs(indexed: true))
        #expect(indexed.versionHash != base.versionHash)
        #expect(indexed.indexHash != base.indexHash)
        #expect(indexed.legacyVersionHash == base.legacyVersionHash)
        #expect(indexed.entityVersionHashes["Task"] != base.entityVersionHashes["Task"])
        #expect(indexed.entityVersionHashes["List"] == base.entityVersionHashes["List"])
    }

    @Test func uniqueFlagsAndCompoundConstraintsChangeTheHash() throws {
        func person(unique: Bool = false, constraints: [[String]] = []) throws -> ObjectModel {
            try ObjectModel(version: "1") {
                Entity("Person", uniquenessConstraints: constraints) {
                    Attribute("firstName", .string)
                    Attribute("lastName", .string)
                    Attribute("email", .string, optional: true, unique: unique)
                }
            }
        }
        let base = try person()
        let unique = try person(unique: true)
        let compound = try person(constraints: [["firstName", "lastName"]])
        let hashes = [base.versionHash, unique.versionHash, compound.versionHash]
        #expect(Set(hashes).count == 3)
        // The order of names in a constraint, or of constraints, is not a change.
        #expect(try person(constraints: [["lastName", "firstName"]]).versionHash == compound.versionHash)
        #expect(try person(constraints: [["lastName", "email"], ["firstName", "lastName"]]).versionHash
            == (try person(constraints: [["firstName", "lastName"], ["email", "lastName"]])).versionHash)
        // A constraint of one declared attribute is that attribute's unique flag.
        let single = try person(constraints: [["email"]])
        #expect(single == unique && single.versionHash == unique.versionHash)
        #expect(single.entity(named: "Person")?.uniquenessConstraints == [])
        // All three have the same version 1 hash: that text knew of neither.
        #expect(Set([base.legacyVersionHash, unique.legacyVersionHash, compound.legacyVersionHash]).count == 1)
    }

    /// Version 2 with a unique attribute, an index and a compound constraint, pinned as
    /// docs/MODEL.md shows it.
    @Test func canonicalDescriptionWithConstraintsIsPinned() throws {
        let model = try ObjectModel(version: "1") {
            Entity("Person", uniquenessConstraints: [["lastName", "firstName"]]) {
                Attribute("firstName", .string, indexed: true)
                Attribute("lastName", .string)
                Attribute("email", .string, optional: true, unique: true)
            }
        }
        #expect(model.canonicalDescription == """
            strata-model-v2
            entity Person abstract=0 parent=-
            attribute email type=string optional=1 external=0 indexed=0 unique=1
            attribute firstName type=string optional=0 external=0 indexed=1 unique=0
            attribute lastName type=string optional=0 external=0 indexed=0 unique=0
            unique firstName,lastName

            """)
        // Computed independently with `sha256sum` over the text above.
        #expect(model.versionHash == "427985d3fd5919981d64392e861eda1327c1709e1abfd00678af9343df747d6d")
    }

    @Test func entityHashesChangeOnlyForTheChangedEntity() throws {
        let base = try Self.model(Knobs())
        let changed = try Self.model(Knobs(toManyOrdered: true))
        #expect(changed.entityVersionHashes["List"] != base.entityVersionHashes["List"])
        #expect(changed.entityVersionHashes["Task"] == base.entityVersionHashes["Task"])
        #expect(changed.entityVersionHashes["Item"] == base.entityVersionHashes["Item"])
    }

    @Test func renamingAnEntityChangesTheHash() throws {
        let v1 = try ObjectModel(version: "1") { Entity("Task") { Attribute("title", .string) } }
        let v2 = try ObjectModel(version: "2") {
            Entity("Todo") { Attribute("title", .string) }.renamed(from: "Task")
        }
        #expect(v1.versionHash != v2.versionHash)
    }

    /// The canonical text is the contract of docs/MODEL.md: if this test fails, the hash
    /// of every existing store changed. Do not update the expectation; add a new
    /// canonical version instead.
    ///
    /// Version 2 adds `indexed=` and `unique=` to attribute lines and a `unique` line
    /// per compound constraint; the version 1 text below stays pinned, as it is what
    /// version-1 stores record and how they are recognised.
    @Test func canonicalDescriptionIsPinned() throws {
        let model = try EmployeesScenario.v1()
        #expect(model.canonicalDescription == """
            strata-model-v2
            entity Department abstract=0 parent=-
            relationship employees destination=Employee inverse=department toMany=1 ordered=0 optional=1
            attribute name type=string optional=0 external=0 indexed=0 unique=0
            entity Employee abstract=0 parent=-
            relationship department destination=Department inverse=employees toMany=0 ordered=0 optional=1
            attribute name type=string optional=0 external=0 indexed=0 unique=0
            attribute photo type=binary optional=1 external=1 indexed=0 unique=0
            attribute salary type=double optional=0 external=0 indexed=0 unique=0

            """)
        // Computed independently with `sha256sum` over the text above.
        #expect(model.versionHash == "885f70d534884494db857d9b7fb7955eb5f5ad3e23abb18e45629f47b1f982cc")
    }

    /// Version 1, which the committed stores of Fixtures/stores/format-1 record.
    @Test func legacyCanonicalDescriptionIsPinned() throws {
        let model = try EmployeesScenario.v1()
        #expect(model.legacyCanonicalDescription == """
            strata-model-v1
            entity Department abstract=0 parent=-
            relationship employees destination=Employee inverse=department toMany=1 ordered=0 optional=1
            attribute name type=string optional=0 external=0
            entity Employee abstract=0 parent=-
            relationship department destination=Department inverse=employees toMany=0 ordered=0 optional=1
            attribute name type=string optional=0 external=0
            attribute photo type=binary optional=1 external=1
            attribute salary type=double optional=0 external=0

            """)
        // Computed independently with `sha256sum` over the text above.
        #expect(model.legacyVersionHash == "53a079df253e3993d4418a7a323e78a7b72e03fcd6529e5d0f5909a00f1e6d80")
    }

    @Test func hashSurvivesJSONRoundTrip() throws {
        let model = try Self.model(Knobs(doneDefault: .bool(true), titleRules: true, indexed: true))
        let read = try ObjectModel(jsonData: try model.jsonData())
        #expect(read.versionHash == model.versionHash)
        #expect(read.indexHash == model.indexHash)
        #expect(read.entityVersionHashes == model.entityVersionHashes)
    }
}
