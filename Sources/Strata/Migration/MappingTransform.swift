import Foundation
import StrataLog

/// A step applied to a property's value after its ``MappingExpression`` produced it:
/// a type conversion, or a default for a value that is nil.
///
/// Inference records these so that the migration manager need not compare the models
/// again: `due` going from optional to non-optional with a default gets
/// `.replaceNil(with: default)`, `priority` going from Int16 to Int64 gets
/// `.convert(from: .int16, to: .int64)`. A custom mapping may write the conversions
/// inference does not make (``isInferred(from:to:)``), such as Int64 → String. The
/// migration manager applies a property mapping's transforms in order to the value its
/// expression gives: `.convert(from: .int16, to: .double)` turns `.int(3)` into
/// `.double(3)`, `.replaceNil(with: .int(0))` turns `.null` into `.int(0)`.
public enum MappingTransform: Sendable, Hashable {
    /// Converts a value of the source attribute type to the destination type. Only the
    /// conversions ``isLossless(from:to:)`` accepts are valid; inference writes only
    /// those ``isInferred(from:to:)`` accepts.
    case convert(from: AttributeType, to: AttributeType)
    /// Replaces `.null` (no value) by this value.
    case replaceNil(with: Value)

    /// Applies the step to a value.
    ///
    /// - Throws: `StrataError` `migrationFailed` when the value does not have the
    ///   source type of a conversion, or the conversion is not a lossless one.
    package func apply(to value: Value) throws -> Value {
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

    /// Whether ``convert(from:to:)`` may be written for this pair in a mapping: every
    /// value of `from` has a value of `to` that says the same — a wider integer, an
    /// integer or a float as a double, and anything as a string. The same type is
    /// trivially convertible. Inference is stricter: see ``isInferred(from:to:)``.
    ///
    /// Int64 → Double is convertible when asked for, as Core Data's custom mappings
    /// allow it; a value beyond 2^53 that a double cannot hold exactly then fails the
    /// migration rather than being rounded.
    public static func isLossless(from: AttributeType, to: AttributeType) -> Bool {
        if from == to || to == .string { return from != .transformable || to == .transformable }
        switch (from, to) {
        case (.int16, .int32), (.int16, .int64), (.int32, .int64): return true
        case (.int16, .double), (.int32, .double), (.int64, .double), (.float, .double): return true
        default: return false
        }
    }

    /// Whether inference (``MappingModel/inferred(from:to:)``) changes an attribute from
    /// `from` to `to` by itself: only when every value has exactly one equal value of
    /// the new type that compares, sorts and reads back the same — a wider integer
    /// (Int16 → Int32 → Int64) and Int16, Int32 or Float → Double.
    ///
    /// Refused, naming `Entity.attribute`, and left to an explicit mapping:
    /// - anything → String: the value survives as text, but `priority > 3` becomes a
    ///   string comparison ("10" < "9"), and the text of a date, a number or bytes is a
    ///   choice the application makes, not one to guess;
    /// - Int64 → Double: doubles hold integers exactly only up to 2^53;
    /// - every narrowing or reinterpreting change (String → Int64, Double → Float…).
    ///
    /// Core Data's inference accepts few type changes and Realm none without a
    /// migration block; this keeps the ones no stored value can notice. Write the others
    /// as ``convert(from:to:)`` in a ``PropertyMapping``.
    public static func isInferred(from: AttributeType, to: AttributeType) -> Bool {
        if from == to { return true }
        switch (from, to) {
        case (.int16, .int32), (.int16, .int64), (.int32, .int64): return true
        case (.int16, .double), (.int32, .double), (.float, .double): return true
        default: return false
        }
    }

    /// The converted value, or nil when `value` is not of a kind the target takes.
    static func convert(_ value: Value, to type: AttributeType) -> Value? {
        switch (value, type) {
        case (.int, .int16), (.int, .int32), (.int, .int64): return value
        case (.int(let number), .double):
            // Beyond 2^53 a double would round: a failed migration, not a changed value.
            return Double(exactly: number).map(Value.double)
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
