import Foundation
import Testing
@testable import Strata
import StrataLog
import StrataTestSupport

/// Which attribute type changes inference accepts (those no stored value can notice),
/// which it leaves to an explicit `.convert` (to String, Int64 → Double), and which
/// it refuses outright (lossy ones).
@Suite("Migration: attribute type changes")
struct MigrationMappingTypeChangeTests {
    static let allowed: [(AttributeType, AttributeType)] = [
        (.int16, .int32), (.int16, .int64), (.int32, .int64),
        (.int16, .double), (.int32, .double), (.float, .double),
    ]

    /// Convertible by an explicit mapping, refused by inference with the recipe.
    static let explicitOnly: [(AttributeType, AttributeType)] = [(.int64, .double)]
        + AttributeType.allCases.filter { $0 != .string && $0 != .transformable }.map { ($0, .string) }

    static let refused: [(AttributeType, AttributeType, String)] = [
        (.string, .int64, "String → Int64"),
        (.int64, .int32, "Int64 → Int32"),
        (.int32, .int16, "Int32 → Int16"),
        (.double, .int64, "Double → Int64"),
        (.double, .float, "Double → Float"),
        (.int64, .float, "Int64 → Float"),
        (.bool, .int16, "Bool → Int16"),
        (.date, .double, "Date → Double"),
        (.binary, .composite, "Binary → Composite"),
        (.string, .url, "String → URI"),
    ]

    private func models(_ from: AttributeType, _ to: AttributeType) throws -> (ObjectModel, ObjectModel) {
        let source = try ObjectModel(version: "1") { Entity("Task") { Attribute("priority", from, optional: true) } }
        let destination = try ObjectModel(version: "2") { Entity("Task") { Attribute("priority", to, optional: true) } }
        return (source, destination)
    }

    @Test(arguments: allowed.indices)
    func losslessChangeIsInferred(_ index: Int) throws {
        let (from, to) = Self.allowed[index]
        #expect(MappingTransform.isLossless(from: from, to: to))
        #expect(MappingTransform.isInferred(from: from, to: to))
        let (source, destination) = try models(from, to)
        let mapping = try MappingModel.inferred(from: source, to: destination)
        let priority = try #require(mapping.entityMappings.first?.attributeMapping(named: "priority"))
        #expect(priority.valueExpression.keyPath == "priority")
        #expect(priority.transforms == [.convert(from: from, to: to)])
    }

    @Test(arguments: explicitOnly.indices)
    func changeToStringOrInt64ToDoubleIsLeftToAnExplicitMapping(_ index: Int) throws {
        let (from, to) = Self.explicitOnly[index]
        #expect(MappingTransform.isLossless(from: from, to: to))
        #expect(!MappingTransform.isInferred(from: from, to: to))
        let (source, destination) = try models(from, to)
        let problems = MappingModel.inferenceProblems(from: source, to: destination)
        #expect(problems.count == 1)
        let problem = try #require(problems.first)
        #expect(problem.entity == "Task" && problem.property == "priority")
        #expect(problem.reason.hasPrefix("type change \(from.migrationDisplayName) → \(to.migrationDisplayName) is not inferred"))
        #expect(problem.reason.contains(".convert(from: .\(from.rawValue), to: .\(to.rawValue))"), "\(problem.reason)")
        #expect(throws: StrataError.self) { try MappingModel.inferred(from: source, to: destination) }
    }

    @Test func theExplicitMappingInferenceNamesRunsOnAStore() throws {
        let dir = try TemporaryDirectory("type-change-explicit")
        defer { dir.remove() }
        let path = dir.appending("tasks.strata")
        let (source, destination) = try models(.int64, .string)
        let store = try ObjectStore(at: path, model: source)
        let context = store.newContext()
        for number in [7, 10, -3] as [Int] { try context.insert("Task").setValue(number, forKey: "priority") }
        _ = try context.insert("Task")
        try context.save()
        try store.close()

        let mapping = MappingModel(from: source, to: destination, entityMappings: [
            EntityMapping(name: "TaskToTask", kind: .transform, sourceEntityName: "Task", destinationEntityName: "Task",
                          attributeMappings: [
                              PropertyMapping(name: "priority", value: .keyPath("priority"),
                                              transforms: [.convert(from: .int64, to: .string)]),
                          ]),
        ])
        var options = StoreOptions()
        options.migration = .mappings([mapping], models: [destination])
        let migrated = try ObjectStore(at: path, model: destination, options: options)
        let after = migrated.newContext()
        let texts = try after.fetch(FetchRequest(entityName: "Task")).map { try $0.string("priority") }
        #expect(texts == ["7", "10", "-3", nil])
        try migrated.close()
    }

    @Test func anInt64BeyondTwoToThe53FailsAnExplicitConversionToDouble() throws {
        #expect(try MappingTransform.convert(from: .int64, to: .double).apply(to: .int(1 << 53)) == .double(9_007_199_254_740_992))
        #expect(throws: StrataError.self) {
            try MappingTransform.convert(from: .int64, to: .double).apply(to: .int((1 << 53) + 1))
        }
    }

    @Test(arguments: refused.indices)
    func lossyChangeIsRefused(_ index: Int) throws {
        let (from, to, text) = Self.refused[index]
        #expect(!MappingTransform.isLossless(from: from, to: to))
        let (source, destination) = try models(from, to)
        expectRefusal(from: source, to: destination,
                      problems: ["Task.priority: type change \(text) is not lossless"])
    }

    @Test func conversionsKeepTheValue() throws {
        #expect(try MappingTransform.convert(from: .int16, to: .int64).apply(to: .int(3)) == .int(3))
        #expect(try MappingTransform.convert(from: .int32, to: .double).apply(to: .int(-7)) == .double(-7))
        #expect(try MappingTransform.convert(from: .float, to: .double).apply(to: .double(0.5)) == .double(0.5))
        #expect(try MappingTransform.convert(from: .int64, to: .string).apply(to: .int(42)) == .string("42"))
        #expect(try MappingTransform.convert(from: .bool, to: .string).apply(to: .bool(true)) == .string("true"))
        #expect(try MappingTransform.convert(from: .double, to: .string).apply(to: .double(1.5)) == .string("1.5"))
        let uuid = UUID()
        #expect(try MappingTransform.convert(from: .uuid, to: .string).apply(to: .uuid(uuid)) == .string(uuid.uuidString))
        #expect(try MappingTransform.convert(from: .binary, to: .string).apply(to: .binary(Data([1, 2, 3])))
                == .string("AQID"))
        let date = Date(timeIntervalSince1970: 946_684_800.25)
        #expect(try MappingTransform.convert(from: .date, to: .string).apply(to: .date(date))
                == .string("2000-01-01T00:00:00.250Z"))
        // No value stays no value: the nil rule is the optional flag's business.
        #expect(try MappingTransform.convert(from: .int16, to: .string).apply(to: .null) == .null)
    }

    @Test func lossyConversionThrowsWhenAppliedAnyway() throws {
        #expect(throws: StrataError.self) {
            try MappingTransform.convert(from: .string, to: .int64).apply(to: .string("3"))
        }
        #expect(throws: StrataError.self) {
            try MappingTransform.convert(from: .int16, to: .int64).apply(to: .string("3"))
        }
    }

    @Test func conversionThenNilReplacementInOrder() throws {
        let source = try ObjectModel(version: "1") { Entity("Task") { Attribute("priority", .int16, optional: true) } }
        let destination = try ObjectModel(version: "2") {
            Entity("Task") { Attribute("priority", .int64, default: .int(1)) }
        }
        let mapping = try MappingModel.inferred(from: source, to: destination)
        let priority = try #require(mapping.entityMappings.first?.attributeMapping(named: "priority"))
        #expect(priority.transforms == [.convert(from: .int16, to: .int64), .replaceNil(with: .int(1))])
        #expect(try priority.finalValue(from: .null) == .int(1))
        #expect(try priority.finalValue(from: .int(3)) == .int(3))
    }
}
