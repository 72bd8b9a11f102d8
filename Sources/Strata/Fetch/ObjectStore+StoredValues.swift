import Foundation
import StrataLog

/// One saved object as ``ObjectStore/enumerateStoredValues(entityName:attributes:toOneRelationships:batchSize:_:)``
/// hands it over: its id and the values asked for, without a managed object.
package struct StoredValues: Sendable {
    /// The object's id.
    package var objectID: ObjectID
    /// The attributes asked for, in the order asked (external binaries read from the
    /// blob area; `.null` when unset).
    package var values: [Value]
    /// The to-one relationships asked for, in the order asked (nil when unset).
    package var destinations: [ObjectID?]
}

extension ObjectStore {
    /// Walks the saved objects of one entity (its sub-entities not included) in key
    /// order, a batch at a time, without a context or managed objects: each record is
    /// read once, in place, and only the named properties are decoded and handed over. For exports
    /// and other bulk reads, where a context's faults and registry are pure overhead;
    /// memory follows the batch size.
    ///
    /// ```swift
    /// try store.enumerateStoredValues(entityName: "Employee", attributes: ["name", "salary"],
    ///                                 toOneRelationships: ["department"]) { batch in
    ///     for employee in batch { print(employee.objectID, employee.values[0], employee.destinations[0] as Any) }
    /// }
    /// ```
    ///
    /// Unsaved changes of any context are not seen (this reads the store). Objects
    /// saved while the walk runs may or may not be included.
    ///
    /// - Parameters:
    ///   - entityName: A concrete entity.
    ///   - attributes: Stored attributes to read (not transient ones).
    ///   - toOneRelationships: To-one relationships whose destinations to give.
    ///   - batchSize: Objects per call of `body` (at least 1).
    ///   - body: Called once per non-empty batch; an error it throws stops the walk.
    /// - Throws: `.unknownKeyPath` for an unknown entity or property (or a transient
    ///   attribute, a to-many), `.invalidArgument` for a batch size below 1,
    ///   `.corrupt` for a damaged record or blob.
    package func enumerateStoredValues(entityName: String, attributes: [String], toOneRelationships: [String] = [],
                                      batchSize: Int = 512, _ body: ([StoredValues]) throws -> Void) throws {
        guard batchSize >= 1 else {
            throw StrataError(.invalidArgument, "the batch size must be at least 1, not \(batchSize)", context: ["entity": entityName])
        }
        guard let entity = model.entity(named: entityName) else {
            throw StrataError(.unknownKeyPath, "the model has no entity '\(entityName)'", context: ["entity": entityName])
        }
        let layout = try schema.layout(entityName)
        func number(_ name: String, valid: Bool) throws -> Int {
            guard valid, let number = layout.fieldNumbers[name] else {
                throw StrataError(.unknownKeyPath, "\(entityName) has no stored \(valid ? "property" : "attribute or to-one relationship") '\(name)'",
                                  context: ["entity": entityName, "keyPath": name])
            }
            return number
        }
        let attributeNumbers = try attributes.map { name in
            try number(name, valid: entity.attributesByName[name].map { !$0.isTransient } ?? false)
        }
        let relationshipNumbers = try toOneRelationships.map { name in
            try number(name, valid: entity.relationshipsByName[name].map { !$0.isToMany } ?? false)
        }
        var batch: [StoredValues] = []
        batch.reserveCapacity(batchSize)
        // The fields asked for are read in place from each record's block (no record
        // copied out, no field array of the whole object); a record the slots cannot
        // read — an older layout, an external binary asked for — is decoded whole.
        var slots = RecordFieldSlots(fields: attributeNumbers + relationshipNumbers, rules: layout.rules)
        let attributeSlots = attributeNumbers.map(slots.slot(of:)), relationshipSlots = relationshipNumbers.map(slots.slot(of:))
        try records.visitRecords(in: StoreSchema.range(tag: layout.tag), wants: nil) { view in
            var fields: [FieldValue]
            if try slots.load(view, layoutID: layout.layoutID, firstLayoutID: layout.firstLayoutID) {
                fields = slots.values
            } else {
                let stored = try schema.decode(view)
                fields = slots.values
                for (number, slot) in zip(attributeNumbers + relationshipNumbers, attributeSlots + relationshipSlots) {
                    fields[slot] = number < stored.fields.count ? stored.fields[number] : .null
                }
            }
            var values: [Value] = []
            values.reserveCapacity(attributeNumbers.count)
            for (number, slot) in zip(attributeNumbers, attributeSlots) {
                switch fields[slot] {
                case .value(let value): values.append(value)
                case .blob(let ref, _): values.append(.binary(Data(try records.readBlob(ref))))
                case .null: values.append(.null)
                case .reference, .references:
                    throw StrataError(.corrupt, "\(entityName).\(layout.fields[number].name) holds a relationship in the record",
                                      context: ["entity": entityName, "keyPath": layout.fields[number].name])
                }
            }
            var destinations: [ObjectID?] = []
            destinations.reserveCapacity(relationshipNumbers.count)
            for slot in relationshipSlots {
                if case .reference(let key) = fields[slot] {
                    guard let destination = objectID(for: key) else {
                        throw StrataError(.objectNotFound, "no entity of this model has key \(key)", context: ["key": "\(key.rawValue)"])
                    }
                    destinations.append(destination)
                } else {
                    destinations.append(nil)
                }
            }
            batch.append(StoredValues(objectID: ObjectID(entityName: entityName, key: view.key, storeIdentifier: identifier),
                                      values: values, destinations: destinations))
            if batch.count == batchSize {
                try body(batch)
                batch.removeAll(keepingCapacity: true)
            }
            return true
        }
        if !batch.isEmpty { try body(batch) }
    }
}
