import Foundation
import StrataLog

/// A step applied to a property's value after its ``MappingExpression`` produced it:
/// a lossless type conversion, or a default for a value that is nil.
///
/// Inference records these so that the migration manager need not compare the models
/// again: `due` going from optional to non-optional with a default gets
/// `.replaceNil(with: default)`, `priority` going from Int16 to String gets
/// `.convert(from: .int16, to: .string)`. ``PropertyMapping/finalValue(from:)`` applies
/// them in order.
///
/// ```swift
/// try MappingTransform.convert(from: .int16, to: .double).apply(to: .int(3))  // .double(3)
/// try MappingTransform.replaceNil(with: .int(0)).apply(to: .null)             // .int(0)
/// ```
public enum MappingTransform: Sendable, Hashable {
    /// Converts a value of the source attribute type to the destination type. Only the
    /// conversions ``isLossless(from:to:)`` accepts are valid.
    case convert(from: AttributeType, to: AttributeType)
    /// Replaces `.null` (no value) by this value.
    case replaceNil(with: Value)

    /// Applies the step to a value.
    ///
    /// - Throws: ``StrataError`` `migrationFailed` when the value does not have the
    ///   source type of a conversion, or the conversion is not a lossless one.
    public func apply(to value: Value) throws -> Value {
        switch self {
        case .replaceNil(let replacement):
            return value.isNull ? replacement : value
        case .convert(let from, let to):
            if value.isNull || from == to { return value }
            guard Self.isLossless(from: from, to: to) else {
                throw StrataError(
                    .migrationFailed,
                    "type change \(from.rawValue) → \(to.rawValue) is not lossless",
                    context: ["from": from.rawValue, "to": to.rawValue])
            }
            guard let converted = Self.convert(value, to: to) else {
                throw StrataError(
                    .migrationFailed,
                    "a \(value.caseName) value cannot be converted from \(from.rawValue) to \(to.rawValue)",
                    context: ["from": from.rawValue, "to": to.rawValue])
            }
            return converted
        }
    }

    /// Whether every value of `from` has an equal value in `to`, so that lightweight
    /// migration may change an attribute's type: a wider integer, any integer or a
    /// float to a double, a float to a double, and anything to a string. The same type
    /// is trivially lossless.
    ///
    /// Int64 → Double is accepted although doubles hold integers exactly only up to
    /// 2^53, as Core Data's lightweight migration accepts it.
    public static func isLossless(from: AttributeType, to: AttributeType) -> Bool {
        if from == to || to == .string { return true }
        switch (from, to) {
        case (.int16, .int32), (.int16, .int64), (.int32, .int64): return true
        case (.int16, .double), (.int32, .double), (.int64, .double), (.float, .double): return true
        default: return false
        }
    }

    /// The converted value, or nil when `value` is not of a kind the target takes.
    static func convert(_ value: Value, to type: AttributeType) -> Value? {
        switch (value, type) {
        case (.int, .int16), (.int, .int32), (.int, .int64): return value
        case (.int(let number), .double): return .double(Double(number))
        case (.double, .double): return value
        case (_, .string): return .string(text(of: value))
        default: return value.conforms(to: type) ? value : nil
        }
    }

    /// The text an attribute converted to a string holds: what a person would write
    /// for the value, and for binary data base64 since bytes have no text of their own.
    static func text(of value: Value) -> String {
        switch value {
        case .null: ""
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .decimal(let number): number.description
        case .string(let string): string
        case .date(let date): date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        case .binary(let data): data.base64EncodedString()
        case .uuid(let uuid): uuid.uuidString
        case .url(let url): url.absoluteString
        case .composite(let data): String(decoding: data, as: UTF8.self)
        }
    }
}
