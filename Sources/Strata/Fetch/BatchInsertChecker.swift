import Foundation
import StrataLog

/// Checks batch-insert input against the model and builds each object's fields:
/// what a context's insert, setters and save validation do for one object, here for a
/// dictionary at position `index` of a batch. Every error names entity, key and index.
///
/// A class, used by the one batch insert that made it: as a struct captured by the
/// insert's chunk closure, each question asked of it would copy it whole (its tables
/// retained and released), several times per object.
final class BatchInsertChecker {
    let store: ObjectStore
    let entity: EntityDescription
    let layout: StoreSchema.EntityLayout
    /// Unique values seen so far in this batch, by the rule's index number.
    @exclusivity(unchecked) private var seenUnique: [UInt32: [[Value]: Int]] = [:]
    /// The uniqueness rules binding the entity's objects, inherited ones included.
    private let uniqueConstraints: [UniqueConstraint]
    /// Every attribute with its field number (nil for a transient), worked out once for
    /// the batch rather than per object.
    private let attributeSlots: [AttributeCheck]
    /// `attributeSlots` as plain values that `fillPlain` reads in place, by the same
    /// positions: taken from the list of classes, each attribute would be retained and
    /// released per key of every object.
    private let plainSlots: [PlainSlot]
    private let requiredToOnes: [(name: String, number: Int)]
    /// The current object's given values by attribute position (reused from object
    /// to object).
    @exclusivity(unchecked) private var given: [Value?]
    /// Per relationship whose model checks passed: its field number and the
    /// destinations already checked in the store (a batch links many objects to a few).
    @exclusivity(unchecked) private var checked: [String: (number: Int, destinations: Set<RecordKey>)] = [:]

    /// Whether `fillPlain` may settle an object (tests turn it off to compare it with
    /// the ordered walk).
    let plainPath: Bool
    /// How many objects `fillPlain` settled (tests ask).
    private(set) var plainCount = 0

    init(store: ObjectStore, entity: EntityDescription, layout: StoreSchema.EntityLayout, plainPath: Bool = true) {
        self.plainPath = plainPath
        self.store = store
        self.entity = entity
        self.layout = layout
        uniqueConstraints = store.schema.shapes[entity.name]?.uniqueConstraints ?? []
        attributeSlots = entity.attributes.map { AttributeCheck($0, number: $0.isTransient ? nil : layout.fieldNumbers[$0.name]) }
        plainSlots = attributeSlots.map(PlainSlot.init)
        given = Array(repeating: nil, count: attributeSlots.count)
        requiredToOnes = entity.relationships.compactMap { relationship in
            guard !relationship.isToMany, !relationship.isOptional, let number = layout.fieldNumbers[relationship.name] else { return nil }
            return (relationship.name, number)
        }
    }

    /// Sets `fields` to the object's fields in layout order: given values, else
    /// defaults, else null. The caller reuses one buffer from object to object (an
    /// array per object was an allocation and a free apiece).
    func fill(_ fields: inout [FieldValue], _ values: [String: Value], index: Int) throws {
        if fields.count != layout.fields.count {
            fields = .nulls(layout.fields.count)
        } else {
            for number in fields.indices { fields[number] = .null }
        }
        // Keys that name no attribute are reported before any value's fault, as a
        // check of every key up front would; it runs only when some key was not used
        // (or a value is wrong), so a good object's keys are hashed once, not twice.
        var used = 0
        if plainPath && fillPlain(&fields, from: values) {
            used = values.count
            plainCount += 1
        } else {
            // The ordered walk below finds the first problem, by attribute, every time.
            for number in fields.indices { fields[number] = .null }
            do {
                try fill(&fields, from: values, index: index, used: &used)
            } catch {
                try checkKeys(values, index: index)
                throw error
            }
        }
        if used != values.count { try checkKeys(values, index: index) }
        for constraint in uniqueConstraints { try checkUnique(constraint, fields: fields, index: index) }
    }

    /// Sets the fields of an object that needs no more than type and optionality
    /// checks: each given key names a stored attribute without value rules, each value
    /// (given, else the default) has the attribute's type, and no required attribute
    /// is left null. Returns false at the first thing it cannot settle, without
    /// saying what (the ordered walk then names it). The dictionary is walked once,
    /// each value moved straight into its field: the ordered walk copies each value
    /// into a buffer by position, out again and into its field.
    private func fillPlain(_ fields: inout [FieldValue], from values: [String: Value]) -> Bool {
        guard attributeSlots.count <= 64 else { return false }
        var given: UInt64 = 0
        let settled = plainSlots.withUnsafeBufferPointer { slots -> Bool in
            for (key, value) in values {
                var found = -1
                for position in slots.indices where slots[position].name == key {
                    found = position
                    break
                }
                guard found >= 0, let number = slots[found].settableNumber, value.conforms(to: slots[found].type) else { return false }
                if value.isNull {
                    guard slots[found].isOptional else { return false }
                } else {
                    fields[number] = .value(value)
                }
                given |= 1 << UInt64(found)
            }
            return true
        }
        guard settled else { return false }
        for position in attributeSlots.indices where given & (1 << UInt64(position)) == 0 {
            let attribute = attributeSlots[position]
            if attribute.isTransient { continue }
            guard let value = attribute.defaultValue, !value.isNull else {
                guard attribute.isOptional else { return false }
                continue
            }
            guard !attribute.hasRules, value.conforms(to: attribute.type) else { return false }
            if let number = attribute.number { fields[number] = .value(value) }
        }
        return true
    }

    /// Throws for the first key (by name) that is not an attribute of the entity.
    private func checkKeys(_ values: [String: Value], index: Int) throws {
        // Sorted only to name the same key every time when several are wrong.
        for key in values.keys.sorted() where entity.attributesByName[key] == nil {
            if entity.relationshipsByName[key] != nil {
                throw error(.invalidArgument, key, index, "\(entity.name).\(key) is a relationship: give it in `relationships`")
            }
            throw error(.unknownKeyPath, key, index, "\(entity.name) has no attribute '\(key)'")
        }
    }

    /// Checks each attribute's value (given, else its default) and sets its field;
    /// `used` counts the keys of `values` that named an attribute.
    private func fill(_ fields: inout [FieldValue], from values: [String: Value], index: Int, used: inout Int) throws {
        // The given values by attribute position, found by walking the dictionary and
        // comparing its keys with the few attribute names (short names compare as
        // words): looking each attribute up would hash its name for every key of every
        // object. Many attributes are looked up by name.
        let byPosition = attributeSlots.count <= 16
        if byPosition {
            // Empty already unless the last object failed part way.
            for position in given.indices where given[position] != nil { given[position] = nil }
            for (key, value) in values {
                if let position = attributeSlots.firstIndex(where: { $0.name == key }) { given[position] = value }
            }
        }
        for (position, attribute) in attributeSlots.enumerated() {
            let number = attribute.number
            // Moved out of the buffer (which is left empty for the next object), not
            // copied: each copy of a string value retained and released it.
            var given: Value?
            if byPosition { swap(&given, &self.given[position]) } else { given = values[attribute.name] }
            if given != nil { used += 1 }
            if attribute.isTransient {
                // Transient values are never written: accepting one would lose it silently.
                if let given, !given.isNull { throw error(.invalidArgument, attribute.name, index, "\(entity.name).\(attribute.name) is transient and is never written") }
                continue
            }
            let value = given ?? attribute.defaultValue ?? .null
            guard value.conforms(to: attribute.type) else {
                throw error(.typeMismatch, attribute.name, index, "\(entity.name).\(attribute.name) is \(attribute.type), not \(value.caseName)")
            }
            if value.isNull {
                if !attribute.isOptional { throw error(.validationFailed, attribute.name, index, "\(entity.name).\(attribute.name) is required") }
                continue
            }
            if let broken = attribute.brokenRules(value).first {
                throw error(.validationFailed, attribute.name, index, "\(entity.name).\(attribute.name): \(broken.message)")
            }
            guard let number else { continue }
            fields[number] = .value(value)
        }
    }

    /// Sets the to-one references of one object, after checking each destination.
    func apply(_ relationships: [String: ObjectID], to fields: inout [FieldValue], index: Int) throws {
        // In name order, so that of several wrong ones the same is reported every time.
        let ordered = relationships.count > 1 ? relationships.sorted(by: { $0.key < $1.key }) : Array(relationships)
        for (name, id) in ordered {
            if let known = checked[name], id.storeIdentifier == store.identifier, known.destinations.contains(id.key),
               store.schema.entityName(of: id.key) == id.entityName {
                fields[known.number] = .reference(id.key)
                continue
            }
            guard let relationship = entity.relationshipsByName[name] else {
                throw error(.unknownKeyPath, name, index, "\(entity.name) has no relationship '\(name)'")
            }
            guard !relationship.isToMany else {
                throw error(.invalidArgument, name, index, "\(entity.name).\(name) is to-many: batch insert sets to-one relationships only (set the to-one side)")
            }
            if let inverseName = relationship.inverseName,
               let inverse = store.model.entity(named: relationship.destinationEntityName)?.relationshipsByName[inverseName],
               !inverse.isToMany {
                throw error(.invalidArgument, name, index, "\(entity.name).\(name) has the to-one inverse \(relationship.destinationEntityName).\(inverseName), which batch insert cannot keep (an old partner would need unlinking); set it through a context")
            }
            guard id.storeIdentifier == store.identifier else {
                throw error(.invalidArgument, name, index, "\(id.uriRepresentation) belongs to another store")
            }
            guard let destination = store.model.entity(named: id.entityName), destination.isKind(of: relationship.destinationEntityName) else {
                throw error(.typeMismatch, name, index, "\(entity.name).\(name) takes \(relationship.destinationEntityName), not \(id.entityName)")
            }
            guard store.schema.entityName(of: id.key) == id.entityName else {
                throw error(.typeMismatch, name, index, "\(id.uriRepresentation) names \(id.entityName), but its key is of \(store.schema.entityName(of: id.key) ?? "no entity")")
            }
            guard try store.records.contains(id.key) else {
                throw error(.invalidArgument, name, index, "\(id) is not in the store (batch insert links to saved objects only)")
            }
            guard let number = layout.fieldNumbers[name] else { continue }
            fields[number] = .reference(id.key)
            checked[name, default: (number, [])].destinations.insert(id.key)
        }
    }

    /// Whether `checkRequiredRelationships` has anything to check.
    var hasRequiredRelationships: Bool { !requiredToOnes.isEmpty }

    /// A required (non-optional) to-one must be set. To-many counts are not checked:
    /// a new object's derived to-many is empty until others point at it.
    func checkRequiredRelationships(_ fields: [FieldValue], index: Int) throws {
        for (name, number) in requiredToOnes {
            if case .reference = fields[number] { continue }
            throw error(.validationFailed, name, index, "\(entity.name).\(name) is required")
        }
    }

    /// Checks one uniqueness rule for one object: against the objects before it in the
    /// batch, then against the store, with the model's own equality.
    private func checkUnique(_ constraint: UniqueConstraint, fields: [FieldValue], index: Int) throws {
        var values: [Value] = []
        for name in constraint.attributes {
            guard let number = layout.fieldNumbers[name], case .value(let value) = fields[number] else { return }
            values.append(value)
        }
        if let earlier = seenUnique[constraint.termIndex]?[values] {
            throw uniquenessError(constraint, values, index, other: "object \(earlier) of the batch")
        }
        if let other = try store.storedDuplicates(of: values, for: constraint, excluding: { _ in false }).first.flatMap(store.objectID(for:)) {
            throw uniquenessError(constraint, values, index, other: other.uriRepresentation)
        }
        seenUnique[constraint.termIndex, default: [:]][values] = index
    }

    private func uniquenessError(_ constraint: UniqueConstraint, _ values: [Value], _ index: Int, other: String) -> StrataError {
        StrataError(.uniquenessViolation,
                    "batch insert, object \(index): \(constraint.label) must be unique; \(other) has the same value \(UniqueConstraint.display(values))",
                    context: ["entity": entity.name, "keyPath": constraint.attributes[0], "index": "\(index)",
                              "properties": constraint.attributes.joined(separator: ","),
                              "value": UniqueConstraint.display(values, limit: .max),
                              "objects": "object \(index) of the batch\n\(other)"])
    }

    private func error(_ code: StrataError.Code, _ key: String, _ index: Int, _ message: String) -> StrataError {
        StrataError(code, "batch insert, object \(index): \(message)", context: ["entity": entity.name, "keyPath": key, "index": "\(index)"])
    }
}

/// What settling a given value of an attribute asks (`BatchInsertChecker.fillPlain`).
private struct PlainSlot {
    let name: String
    /// The field number when a given value needs no check beyond its type and
    /// optionality: a stored attribute without value rules; nil otherwise.
    let settableNumber: Int?
    let type: AttributeType
    let isOptional: Bool

    init(_ attribute: AttributeCheck) {
        name = attribute.name
        settableNumber = attribute.hasRules ? nil : attribute.number
        type = attribute.type
        isOptional = attribute.isOptional
    }
}
