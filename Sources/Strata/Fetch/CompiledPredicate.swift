import StrataLog

/// A predicate resolved against one entity's record layout, judged on the fields of
/// a record (``RecordFieldSlots``) instead of a managed object: key paths are field
/// numbers, found once per request; comparisons of an integer attribute with an
/// integer constant are specialised; every other comparison calls the interpreter's
/// own `PredicateComparison.evaluate(left:right:)`, so both ways share every rule
/// and every error.
///
/// Key paths through to-one relationships (`department == %@`, `department.name`)
/// are read from the destinations' records through the context's ``ToOneReader``,
/// when the fetch gives its context.
///
/// What it cannot judge from a record's fields, it leaves to the object (the caller
/// judges that one candidate as a managed object, as an uncompiled fetch would):
/// key paths through to-many relationships, `@count`, transient attributes and lists
/// of key paths make `compile` fail for the whole request; an external binary, a
/// damaged field or a destination the reader will not answer for makes `evaluate`
/// answer nil for that record only.
indirect enum CompiledPredicate {
    case constant(Bool)
    case and([CompiledPredicate])
    case or([CompiledPredicate])
    case not(CompiledPredicate)
    /// `field op constant` for an integer attribute and an integer constant.
    case integer(slot: Int, op: PredicateOperator, Int64, CompiledComparison)
    /// `field BETWEEN {lower, upper}` for an integer attribute and integer bounds.
    case integerBetween(slot: Int, Int64, Int64, CompiledComparison)
    case comparison(CompiledComparison)

    /// Why a predicate cannot be compiled (shown by `explain`).
    struct Refusal: Error {
        var reason: String
    }

    /// Compiles `predicate` for `layout`, adding the fields it reads to `fields`. The
    /// reader of the context `relationships` reads key paths through to-one
    /// relationships; without one, such a path is refused.
    ///
    /// - Throws: ``Refusal`` naming what needs a managed object.
    static func compile(_ predicate: Predicate, entity: EntityDescription, layout: StoreSchema.EntityLayout,
                        relationships: ObjectContext? = nil, fields: inout [Int]) throws -> CompiledPredicate {
        func compile(_ operand: Predicate) throws -> CompiledPredicate {
            try Self.compile(operand, entity: entity, layout: layout, relationships: relationships, fields: &fields)
        }
        switch predicate {
        case .truePredicate: return .constant(true)
        case .falsePredicate: return .constant(false)
        case .not(let operand): return .not(try compile(operand))
        case .and(let operands): return .and(try operands.map(compile))
        case .or(let operands): return .or(try operands.map(compile))
        case .comparison(let comparison):
            let compiled = CompiledComparison(source: comparison,
                                              lhs: try CompiledOperand(comparison.lhs, entity: entity, layout: layout, relationships: relationships, fields: &fields),
                                              rhs: try CompiledOperand(comparison.rhs, entity: entity, layout: layout, relationships: relationships, fields: &fields))
            guard comparison.quantifier == .direct, case .field(let number, let type) = compiled.lhs, type.isInteger else {
                return .comparison(compiled)
            }
            switch (comparison.op, compiled.rhs) {
            case (.equalTo, .constant(.single(.value(.int(let c))))), (.notEqualTo, .constant(.single(.value(.int(let c))))),
                 (.lessThan, .constant(.single(.value(.int(let c))))), (.lessThanOrEqualTo, .constant(.single(.value(.int(let c))))),
                 (.greaterThan, .constant(.single(.value(.int(let c))))), (.greaterThanOrEqualTo, .constant(.single(.value(.int(let c))))):
                return .integer(slot: number, op: comparison.op, c, compiled)
            case (.between, .constant(.many(let bounds))) where bounds.count == 2:
                guard case .value(.int(let low)) = bounds[0], case .value(.int(let high)) = bounds[1] else { return .comparison(compiled) }
                return .integerBetween(slot: number, low, high, compiled)
            default:
                return .comparison(compiled)
            }
        }
    }

    /// Replaces field numbers by slot numbers once the slots are laid out.
    func bound(to slots: RecordFieldSlots) -> CompiledPredicate {
        switch self {
        case .constant: return self
        case .and(let operands): return .and(operands.map { $0.bound(to: slots) })
        case .or(let operands): return .or(operands.map { $0.bound(to: slots) })
        case .not(let operand): return .not(operand.bound(to: slots))
        case .integer(let number, let op, let c, let comparison): return .integer(slot: slots.slot(of: number), op: op, c, comparison.bound(to: slots))
        case .integerBetween(let number, let low, let high, let comparison):
            return .integerBetween(slot: slots.slot(of: number), low, high, comparison.bound(to: slots))
        case .comparison(let comparison): return .comparison(comparison.bound(to: slots))
        }
    }

    /// Whether the record whose fields `values` holds satisfies the predicate; nil
    /// when a field it reads is not an attribute value (judge the object instead).
    ///
    /// - Throws: what the interpreter throws for the same values.
    func evaluate(_ values: [FieldValue]) throws -> Bool? {
        switch self {
        case .constant(let result):
            return result
        case .and(let operands):
            for operand in operands {
                guard let result = try operand.evaluate(values) else { return nil }
                if !result { return false }
            }
            return true
        case .or(let operands):
            for operand in operands {
                guard let result = try operand.evaluate(values) else { return nil }
                if result { return true }
            }
            return false
        case .not(let operand):
            return try operand.evaluate(values).map { !$0 }
        // The comparisons are bound only on the slow path: binding one copies (and
        // retains) its operands, which was most of a fast comparison's cost.
        case .integer(let slot, let op, let c, _):
            switch values[slot] {
            case .value(.int(let v)):
                switch op {
                case .equalTo: return v == c
                case .notEqualTo: return v != c
                case .lessThan: return v < c
                case .lessThanOrEqualTo: return v <= c
                case .greaterThan: return v > c
                default: return v >= c
                }
            case .null:
                // nil equals no number; every ordering with a nil side is false.
                return op == .notEqualTo
            default:
                guard case .integer(_, _, _, let comparison) = self else { return nil }
                return try comparison.evaluate(values)
            }
        case .integerBetween(let slot, let low, let high, _):
            switch values[slot] {
            case .value(.int(let v)): return v >= low && v <= high
            case .null: return false
            default:
                guard case .integerBetween(_, _, _, let comparison) = self else { return nil }
                return try comparison.evaluate(values)
            }
        case .comparison(let comparison):
            return try comparison.evaluate(values)
        }
    }
}

/// One test of an integer field against constants, as plain values: `low...high`, or
/// `!= low` when `notEqual`; what a nil field answers.
struct IntegerTest {
    let slot: Int
    let low: Int64
    let high: Int64
    let notEqual: Bool
    let nullResult: Bool

    func passes(_ v: Int64) -> Bool { notEqual ? v != low : (v >= low && v <= high) }
}

extension CompiledPredicate {
    /// The predicate as integer tests all of which must pass, when it is one
    /// (`.integer`, `.integerBetween`, or an AND of them); nil otherwise. Judged in a
    /// loop over plain values, without walking the enum's boxes (which are retained and
    /// released per record).
    var integerTests: [IntegerTest]? {
        switch self {
        case .integer(let slot, let op, let c, _):
            switch op {
            case .equalTo: return [IntegerTest(slot: slot, low: c, high: c, notEqual: false, nullResult: false)]
            case .notEqualTo: return [IntegerTest(slot: slot, low: c, high: c, notEqual: true, nullResult: true)]
            case .lessThan:
                // Nothing is below Int64.min: an empty range.
                return [c == .min ? IntegerTest(slot: slot, low: 1, high: 0, notEqual: false, nullResult: false)
                                  : IntegerTest(slot: slot, low: .min, high: c - 1, notEqual: false, nullResult: false)]
            case .lessThanOrEqualTo: return [IntegerTest(slot: slot, low: .min, high: c, notEqual: false, nullResult: false)]
            case .greaterThan:
                return [c == .max ? IntegerTest(slot: slot, low: 1, high: 0, notEqual: false, nullResult: false)
                                  : IntegerTest(slot: slot, low: c + 1, high: .max, notEqual: false, nullResult: false)]
            case .greaterThanOrEqualTo: return [IntegerTest(slot: slot, low: c, high: .max, notEqual: false, nullResult: false)]
            default: return nil
            }
        case .integerBetween(let slot, let low, let high, _):
            return [IntegerTest(slot: slot, low: low, high: high, notEqual: false, nullResult: false)]
        case .and(let operands):
            var tests: [IntegerTest] = []
            for operand in operands {
                guard let more = operand.integerTests else { return nil }
                tests += more
            }
            return tests
        default:
            return nil
        }
    }
}

/// One comparison with its sides resolved to fields or constants.
struct CompiledComparison {
    let source: PredicateComparison
    let lhs: CompiledOperand
    let rhs: CompiledOperand

    func bound(to slots: RecordFieldSlots) -> CompiledComparison {
        CompiledComparison(source: source, lhs: lhs.bound(to: slots), rhs: rhs.bound(to: slots))
    }

    func evaluate(_ values: [FieldValue]) throws -> Bool? {
        guard let left = try lhs.resolve(values), let right = try rhs.resolve(values) else { return nil }
        return try source.evaluate(left: left, right: right)
    }
}

/// One side of a compiled comparison: a constant (already resolved), an attribute of
/// the record by field number (a slot number once bound), or a key path through a
/// to-one relationship of the record (its field, then what the reader finds).
enum CompiledOperand {
    case constant(PredicateResolvedExpression)
    case field(Int, AttributeType)
    case toOne(Int, ToOneReader.Path)

    init(_ expression: PredicateExpression, entity: EntityDescription, layout: StoreSchema.EntityLayout,
         relationships: ObjectContext? = nil, fields: inout [Int]) throws {
        switch expression {
        case .constant(let value):
            self = .constant(.single(.value(value)))
        case .object(let id):
            self = .constant(.single(.object(id)))
        case .variable(let name):
            throw CompiledPredicate.Refusal(reason: "the variable $\(name) is not substituted")
        case .count(let path):
            throw CompiledPredicate.Refusal(reason: "'\(path).@count' counts related objects")
        case .list(let elements):
            var operands: [PredicateOperand] = []
            for element in elements {
                guard case .constant(.single(let operand)) = try CompiledOperand(element, entity: entity, layout: layout, relationships: relationships, fields: &fields) else {
                    throw CompiledPredicate.Refusal(reason: "a list holds a key path")
                }
                operands.append(operand)
            }
            self = .constant(.many(operands))
        case .keyPath(let path):
            let components = path.utf8.contains(UInt8(ascii: ".")) ? path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) : [path]
            if let first = components.first, let relationship = entity.relationshipsByName[first] {
                guard let relationships, !relationship.isToMany, let number = layout.fieldNumbers[first] else {
                    throw CompiledPredicate.Refusal(reason: relationship.isToMany ? "the key path '\(path)' leads through the to-many relationship '\(first)'"
                                                                               : "the key path '\(path)' leads through a relationship")
                }
                let compiled = try relationships.toOneReader.compile(components, entity: entity, path: path)
                fields.append(number)
                self = .toOne(number, compiled)
                return
            }
            guard components.count == 1 else {
                throw CompiledPredicate.Refusal(reason: "the key path '\(path)' leads through a relationship")
            }
            guard let attribute = entity.attributesByName[path] else {
                throw CompiledPredicate.Refusal(reason: "'\(path)' is a relationship")
            }
            guard !attribute.isTransient, let number = layout.fieldNumbers[path] else {
                throw CompiledPredicate.Refusal(reason: "'\(path)' is transient")
            }
            fields.append(number)
            self = .field(number, attribute.type)
        }
    }

    func bound(to slots: RecordFieldSlots) -> CompiledOperand {
        switch self {
        case .constant: return self
        case .field(let number, let type): return .field(slots.slot(of: number), type)
        case .toOne(let number, let path): return .toOne(slots.slot(of: number), path)
        }
    }

    /// The operand for a record's slots; nil for a field that is not an attribute
    /// value (an external binary's reference, or damage the object reports), or a
    /// path the reader leaves to the object.
    ///
    /// - Throws: `.corrupt` for a destination record that does not decode.
    func resolve(_ values: [FieldValue]) throws -> PredicateResolvedExpression? {
        switch self {
        case .constant(let resolved):
            return resolved
        case .field(let slot, _):
            switch values[slot] {
            case .null: return .single(.value(.null))
            case .value(let value): return .single(.value(value))
            default: return nil
            }
        case .toOne(let slot, let path):
            switch values[slot] {
            case .null: return .single(.value(.null))
            case .reference(let key): return try path.resolve(key)
            default: return nil
            }
        }
    }
}

extension AttributeType {
    /// Integer attributes: their values are always `.int`.
    var isInteger: Bool {
        switch self {
        case .int16, .int32, .int64: true
        default: false
        }
    }
}
