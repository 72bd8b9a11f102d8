import Foundation
import Testing
@testable import Strata
import StrataLog

/// Which attribute type changes inference accepts (lossless ones) and refuses.
@Suite("Migration: attribute type changes")
struct MigrationMappingTypeChangeTests {
    static let allowed: [(AttributeType, AttributeType)] = [
        (.int16, .int32), (.int16, .int64), (.int32, .int64),
        (.int16, .double), (.int32, .double), (.int64, .double), (.float, .double),
    ] + AttributeType.allCases.filter { $0 != .string }.map { ($0, .string) }

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
        let (source, destination) = try models(from, to)
        let mapping = try MappingModel.inferred(from: source, to: destination)
        let priority = try #require(mapping.entityMappings.first?.attributeMapping(named: "priority"))
        #expect(priority.valueExpression.keyPath == "priority")
        #expect(priority.transforms == [.convert(from: from, to: to)])
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
