import Foundation
import Strata

/// Decodes lines of a JSON Lines import into ``ImportLine``s, reading each line once in
/// place and driven by its entity's properties: no JSON tree is built for a line.
///
/// Two paths give the same answers. The fast path reads the bytes directly and
/// accepts a strict subset of JSON Lines (keys without escapes, each once; values of
/// the attributes' own types; composite and JSON-transformable attributes excepted).
/// Anything it does not accept — every malformed line among others — goes to the
/// reference path: Foundation's `JSONDecoder` into a ``JSONValue`` tree, then
/// ``ImportLine/init(_:model:values:)``, whose error messages `strata import` has always
/// given. So a line is either decoded fast into what the reference would give, or
/// decoded (or refused) by the reference itself; the fuzz target `import-line` holds
/// the two to that.
///
/// A decoder is not `Sendable` (its date formatter is not): give each thread its own.
///
/// ```swift
/// let decoder = JSONLineDecoder(model: store.model)
/// let line = try decoder.decode(Array(#"{"@entity": "Employee", "name": "Ada"}"#.utf8)[...])
/// line.entity.name     // "Employee"
/// ```
package final class JSONLineDecoder {
    package let model: ObjectModel
    private let converter = JSONLines()
    private let coder = JSONLineCoder()
    /// Per entity, its properties as the fast path looks them up, by the entity's name.
    private var plans: [String: EntityPlan] = [:]
    /// The plan of the entity the last line named: consecutive lines mostly share one.
    private var lastPlan: EntityPlan?
    /// The keys and value positions of the line being read, reused from line to line.
    private var fields: [(key: Range<Int>, value: Int)] = []
    /// Which of the entity's properties the line has given, reused likewise.
    private var seen: [Bool] = []

    /// How many lines went to the reference path, for tests and benchmarks.
    package private(set) var referenceDecodes = 0

    package init(model: ObjectModel) {
        self.model = model
    }

    /// Decodes one line (without its newline).
    ///
    /// - Throws: A ``LineProblem`` (from the reference path) for a line that is not
    ///   JSON, nests too deep, is not an object, names an unknown or abstract entity or
    ///   property, or gives a value of the wrong type.
    package func decode(_ line: ArraySlice<UInt8>) throws(LineProblem) -> ImportLine {
        if let fast = decodeFast(line) { return fast }
        return try decodeReference(line)
    }

    /// Checks one line as ``decode(_:)`` does and keeps only its entity's name and its
    /// names: what an import's first pass needs, without a copy of the entity's
    /// description or of the values per line.
    ///
    /// - Throws: What ``decode(_:)`` throws for the line.
    package func check(_ line: ArraySlice<UInt8>) throws(LineProblem) -> CheckedLine {
        let fast = line.withUnsafeBufferPointer { bytes -> CheckedLine? in
            guard let (plan, fields) = decodeFields(bytes, keep: false) else { return nil }
            return CheckedLine(entityName: plan.entity.name, names: fields.names)
        }
        if let fast { return fast }
        let checked = try decodeReference(line)
        return CheckedLine(entityName: checked.entity.name, names: checked.names)
    }

    /// The reference path alone: a `JSONValue` tree, then the model's checks.
    package func decodeReference(_ line: ArraySlice<UInt8>) throws(LineProblem) -> ImportLine {
        referenceDecodes += 1
        return try ImportLine(try coder.decode(line), model: model, values: converter)
    }

    /// The fast path alone: nil when the line needs the reference path.
    package func decodeFast(_ line: ArraySlice<UInt8>) -> ImportLine? {
        line.withUnsafeBufferPointer { bytes in
            decodeFields(bytes, keep: true).map { plan, fields in
                ImportLine(entity: plan.entity, names: fields.names, values: fields.values, links: fields.links)
            }
        }
    }

    /// What the fast path read of a line.
    private struct Fields {
        var names: [String]
        var values: [(AttributeDescription, Value)]
        var links: [(RelationshipDescription, [ImportLine.Target])]
    }

    /// The fast path; without `keep`, values and links are checked but not kept.
    private func decodeFields(_ bytes: UnsafeBufferPointer<UInt8>, keep: Bool) -> (EntityPlan, Fields)? {
        var scanner = JSONLineScanner(bytes)
        // Pass over the keys: where each value starts, and the entity's name.
        fields.removeAll(keepingCapacity: true)
        guard scanner.consume(UInt8(ascii: "{")) else { return nil }
        var entityName: String?
        if !scanner.consume(UInt8(ascii: "}")) {
            while true {
                scanner.skipWhitespace()
                guard let key = scanner.plainKey(), scanner.consume(UInt8(ascii: ":")) else { return nil }
                scanner.skipWhitespace()
                let valueStart = scanner.position
                if Self.equals(bytes, key, Self.entityKeyBytes) {
                    guard entityName == nil, let name = scanner.string() else { return nil }
                    entityName = name
                } else {
                    guard skipValue(&scanner) else { return nil }
                }
                fields.append((key, valueStart))
                if scanner.consume(UInt8(ascii: ",")) { continue }
                guard scanner.consume(UInt8(ascii: "}")) else { return nil }
                break
            }
        }
        scanner.skipWhitespace()
        guard scanner.atEnd, let entityName, let plan = plan(for: entityName) else { return nil }
        return read(bytes, plan: plan, keep: keep).map { (plan, $0) }
    }

    /// The values, read now that the entity is known.
    private func read(_ bytes: UnsafeBufferPointer<UInt8>, plan: EntityPlan, keep: Bool) -> Fields? {
        seen.removeAll(keepingCapacity: true)
        seen.append(contentsOf: repeatElement(false, count: plan.properties.count))
        var idName: String?
        var refName: String?
        var values: [(AttributeDescription, Value)] = []
        if keep { values.reserveCapacity(fields.count) }
        var links: [(RelationshipDescription, [ImportLine.Target])] = []
        var sortedValues = true
        for (key, valueStart) in fields {
            var scanner = JSONLineScanner(bytes)
            scanner.position = valueStart
            if bytes[key.lowerBound] == UInt8(ascii: "@") {
                if Self.equals(bytes, key, Self.entityKeyBytes) { continue }
                let isID = Self.equals(bytes, key, Self.idKeyBytes)
                guard isID || Self.equals(bytes, key, Self.refKeyBytes) else { return nil }
                guard let name = scanner.string(), !name.isEmpty else { return nil }
                if isID {
                    guard idName == nil else { return nil }
                    idName = name
                } else {
                    guard refName == nil else { return nil }
                    refName = name
                }
                continue
            }
            guard let index = plan.index(of: bytes, key), !seen[index] else { return nil }
            seen[index] = true
            switch plan.properties[index] {
            case .attribute(let attribute):
                guard let value = attributeValue(&scanner, attribute, entity: plan.entity.name) else { return nil }
                guard keep else { continue }
                if let last = values.last, last.0.name > attribute.name { sortedValues = false }
                values.append((attribute, value))
            case .relationship(let relationship):
                guard let json = scanner.nested(depthLeft: JSONLineCoder.maximumDepth - 1),
                      let targets = Self.targets(json, relationship) else { return nil }
                if keep { links.append((relationship, targets)) }
            case .referencePath:
                return nil
            }
        }
        if !sortedValues { values.sort { $0.0.name < $1.0.name } }
        if links.count > 1 { links.sort { $0.0.name < $1.0.name } }
        var names: [String] = []
        if let idName { names.append(idName) }
        if let refName { names.append(refName) }
        return Fields(names: names, values: values, links: links)
    }

    /// One attribute's value, converted as the reference path converts it; nil where
    /// the reference path must decide.
    private func attributeValue(_ scanner: inout JSONLineScanner, _ attribute: AttributeDescription, entity: String) -> Value? {
        let json: JSONValue
        switch scanner.peek {
        case UInt8(ascii: "\""):
            guard let text = scanner.string() else { return nil }
            json = .string(text)
        case UInt8(ascii: "n"):
            guard scanner.consumeLiteral("null") else { return nil }
            json = .null
        case UInt8(ascii: "t"):
            guard scanner.consumeLiteral("true") else { return nil }
            json = .bool(true)
        case UInt8(ascii: "f"):
            guard scanner.consumeLiteral("false") else { return nil }
            json = .bool(false)
        case UInt8(ascii: "{"):
            guard let nested = scanner.nested(depthLeft: JSONLineCoder.maximumDepth - 1) else { return nil }
            json = nested
        default:
            guard let number = scanner.number() else { return nil }
            switch number {
            case .integer(let value):
                json = .integer(value)
            case .other(let range):
                // Only a float or double reads such a number the same whichever way it
                // is taken (JSONDecoder makes an integral one an integer first).
                guard attribute.type == .double || attribute.type == .float, let value = scanner.double(range) else { return nil }
                json = .number(value)
            }
        }
        return try? converter.value(json, for: attribute, of: entity)
    }

    private static func targets(_ json: JSONValue, _ relationship: RelationshipDescription) -> [ImportLine.Target]? {
        if case .null = json { return [] }
        if relationship.isToMany {
            guard case .array(let items) = json else { return nil }
            var targets: [ImportLine.Target] = []
            targets.reserveCapacity(items.count)
            for item in items {
                guard let target = target(item) else { return nil }
                targets.append(target)
            }
            return targets
        }
        return target(json).map { [$0] }
    }

    private static func target(_ json: JSONValue) -> ImportLine.Target? {
        guard case .object(let fields) = json, fields.count == 1, let (key, value) = fields.first,
              case .string(let name) = value, !name.isEmpty else { return nil }
        switch key {
        case JSONLines.refKey: return .ref(name)
        case JSONLines.idKey: return .id(name)
        default: return nil
        }
    }

    /// Steps over a value whose meaning waits for the entity, checking only that it is
    /// one the fast path reads (the reading itself comes after).
    private func skipValue(_ scanner: inout JSONLineScanner) -> Bool {
        switch scanner.peek {
        case UInt8(ascii: "\""): return scanner.string() != nil
        case UInt8(ascii: "n"): return scanner.consumeLiteral("null")
        case UInt8(ascii: "t"): return scanner.consumeLiteral("true")
        case UInt8(ascii: "f"): return scanner.consumeLiteral("false")
        case UInt8(ascii: "{"), UInt8(ascii: "["): return scanner.nested(depthLeft: JSONLineCoder.maximumDepth - 1) != nil
        default: return scanner.number() != nil
        }
    }

    private func plan(for name: String) -> EntityPlan? {
        if let lastPlan, lastPlan.entity.name == name { return lastPlan }
        if let known = plans[name] {
            lastPlan = known
            return known
        }
        guard let entity = model.entity(named: name), !entity.isAbstract else { return nil }
        let plan = EntityPlan(entity)
        plans[name] = plan
        lastPlan = plan
        return plan
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ name: [UInt8]) -> Bool {
        guard range.count == name.count else { return false }
        return name.withUnsafeBufferPointer { memcmp(bytes.baseAddress! + range.lowerBound, $0.baseAddress!, name.count) == 0 }
    }

    private static let entityKeyBytes = Array(JSONLines.entityKey.utf8)
    private static let idKeyBytes = Array(JSONLines.idKey.utf8)
    private static let refKeyBytes = Array(JSONLines.refKey.utf8)
}
