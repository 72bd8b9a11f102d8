import Foundation
import StrataLog

/// One uniqueness rule as a store checks it: a unique attribute, or a compound
/// constraint, of the entity that declares it. Objects of that entity and of its
/// sub-entities share one scope, and their terms share one index number.
struct UniqueConstraint: Sendable {
    /// The entity that declares the rule.
    let entity: String
    /// The constrained attributes (one, or the sorted names of a compound constraint).
    let attributes: [String]
    /// The index number of the rule's terms: the attribute's own index for a unique
    /// attribute; for a compound constraint the declaring entity's tag in the high 16
    /// bits and 0x8000 plus the constraint's position below.
    let termIndex: UInt32
    /// The entity tags the rule binds: the declaring entity's and its sub-entities'.
    let scopeTags: Set<UInt16>

    var isCompound: Bool { attributes.count > 1 || termIndex & 0x8000 != 0 }

    /// `Person.email`, or `Person.(firstName, lastName)` for a compound constraint.
    var label: String {
        isCompound ? "\(entity).(\(attributes.joined(separator: ", ")))" : "\(entity).\(attributes.joined())"
    }

    /// The term an object with these values carries for the rule; nil when a value is
    /// null (values are null-distinct, as in SQL) or has no term.
    static func term(_ values: [Value], compound: Bool) -> [UInt8]? {
        if !compound, values.count == 1 { return ObjectCodec.orderedBytes(values[0]) }
        var w = FieldWriter()
        for value in values {
            guard let bytes = ObjectCodec.orderedBytes(value) else { return nil }
            w.varint(UInt64(bytes.count))
            w.bytes.append(contentsOf: bytes)
        }
        return w.bytes
    }

    /// Every term an equal set of values may carry. Equal values have one term each,
    /// except zero: `-0.0 == 0.0`, but their order-preserving bytes differ.
    static func equalTerms(_ values: [Value], compound: Bool) -> [[UInt8]] {
        var variants: [[Value]] = [[]]
        for value in values {
            let alternatives = zeroVariants(value)
            variants = variants.flatMap { prefix in alternatives.map { prefix + [$0] } }
        }
        return variants.compactMap { term($0, compound: compound) }
    }

    static func zeroVariants(_ value: Value) -> [Value] {
        switch value {
        case .double(let d) where d == 0: [.double(0), .double(-0.0)]
        case .date(let d) where d.timeIntervalSinceReferenceDate == 0:
            [.date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: -0.0))]
        default: [value]
        }
    }

    /// A migration into a model with this rule met two objects with equal values:
    /// `.uniquenessViolation` naming the rule (`entity`, `properties`, and `property`
    /// for one attribute), the `value`, both `objects` and the two model hashes.
    func migrationViolation(values: [Value], objects: [ObjectID], sourceHash: String, destinationHash: String) -> StrataError {
        let objects = objects.sorted { $0.key < $1.key }
        var context = [
            "entity": entity, "properties": attributes.joined(separator: ","),
            "value": Self.display(values, limit: .max),
            "objects": objects.map(\.description).joined(separator: "\n"),
            "sourceHash": sourceHash, "destinationHash": destinationHash,
        ]
        if !isCompound { context["property"] = attributes[0] }
        let names = objects.map(\.description)
        return StrataError(
            .uniquenessViolation,
            "\(label) must be unique in the new model, but \(names.first ?? "") and \(names.last ?? "") have the value "
                + "\(Self.display(values)); the store is unchanged",
            context: context)
    }

    /// A value for messages: strings quoted, long values cut (the error's context
    /// holds it whole).
    static func display(_ values: [Value], limit: Int = 120) -> String {
        let parts = values.map { value -> String in
            let text: String = switch value {
            case .string(let s): "\"\(s)\""
            case .null: "nil"
            case .bool(let b): "\(b)"
            case .int(let i): "\(i)"
            case .double(let d): "\(d)"
            case .decimal(let d): "\(d)"
            case .date(let d): "\(d)"
            case .binary(let data), .composite(let data): "\(data.count) bytes"
            case .uuid(let u): u.uuidString
            case .url(let url): url.absoluteString
            }
            return text.count > limit ? String(text.prefix(limit)) + "…" : text
        }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: ", ") + ")"
    }
}
