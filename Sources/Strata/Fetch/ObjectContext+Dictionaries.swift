import Foundation
import StrataLog

/// Dictionary results (Core Data's `NSDictionaryResultType`): a fetch that hands back
/// the values of the properties it names, read from the records, and no managed
/// object — neither for the candidates it judges (the compiled path judges records)
/// nor for its results.
extension ObjectContext {
    /// The values of `request.propertiesToFetch` (nil: every stored attribute and
    /// every to-one relationship) of each object the request matches, in its order,
    /// window and limit, without making managed objects.
    ///
    /// ```swift
    /// var request = FetchRequest(entityName: "Employee", predicate: try Predicate(format: "department.name == 'Sales'"))
    /// request.propertiesToFetch = ["name", "salary"]
    /// request.sortKeys = [.descending("salary")]
    /// request.fetchLimit = 10
    /// let top = try context.fetchDictionaries(request)      // [FetchedValues]
    /// print(top.first?["name"] ?? .null)
    /// ```
    ///
    /// As in Core Data, dictionary results reflect the store and not this context's
    /// unsaved inserts, updates and deletes (`includesPendingChanges` is not consulted):
    /// the predicate and sort keys judge saved values, and the values handed back are
    /// the saved ones. An external binary asked for is read from the blob area; one not
    /// asked for is never touched. An object deleted by another context between
    /// judging and reading is left out.
    ///
    /// - Throws: `.unknownKeyPath` naming the entity and key for a property the entity
    ///   lacks (and as ``fetch(_:)`` for its predicate and sort keys);
    ///   `.invalidArgument` for a transient attribute or a to-many relationship, which
    ///   a record holds no value of; `.corrupt` for a damaged record or blob.
    public func fetchDictionaries(_ request: FetchRequest) throws -> [FetchedValues] {
        guard let entity = store.model.entity(named: request.entityName) else {
            throw StrataError(.unknownKeyPath, "the model has no entity '\(request.entityName)'", context: ["entity": request.entityName])
        }
        let names = try dictionaryProperties(request.propertiesToFetch, of: entity)
        var storeOnly = request
        storeOnly.includesPendingChanges = false
        let keys = try execute(storeOnly, keepObjects: false).keys

        // How each entity's records give the named properties (a sub-entity has its own
        // layout), worked out once per entity met.
        var readers: [UInt16: [(name: String, number: Int, isAttribute: Bool)]] = [:]
        func reader(for key: RecordKey) throws -> [(name: String, number: Int, isAttribute: Bool)] {
            let tag = StoreSchema.tag(of: key)
            if let known = readers[tag] { return known }
            guard let name = schema.entityByTag[tag], let layout = schema.shapes[name]?.layout,
                  let concrete = store.model.entity(named: name) else {
                throw StrataError(.corrupt, "a match of \(key) is of no entity of the model", context: ["entity": entity.name])
            }
            let made = try names.map { property -> (name: String, number: Int, isAttribute: Bool) in
                guard let number = layout.fieldNumbers[property] else {
                    throw StrataError(.corrupt, "\(name) has no stored field for '\(property)'", context: ["entity": name, "keyPath": property])
                }
                return (property, number, concrete.attributesByName[property] != nil)
            }
            readers[tag] = made
            return made
        }

        var results: [FetchedValues] = []
        results.reserveCapacity(keys.count)
        var start = 0
        while start < keys.count {
            let batch = Array(keys[start..<min(keys.count, start + Self.fetchScanBatch)])
            start += Self.fetchScanBatch
            try store.records.visitRecords(batch) { _, view in
                let stored = try decodeStored(view)
                var values: [String: Value] = [:]
                var destinations: [String: ObjectID] = [:]
                for property in try reader(for: view.key) {
                    let field = property.number < stored.fields.count ? stored.fields[property.number] : .null
                    switch field {
                    case .null:
                        if property.isAttribute { values[property.name] = .null }
                    case .value(let value):
                        values[property.name] = value
                    case .blob(let ref, _):
                        values[property.name] = .binary(Data(try store.records.readBlob(ref)))
                    case .reference(let target):
                        guard let id = store.objectID(for: target) else {
                            throw StrataError(.corrupt, "\(entity.name).\(property.name) of \(view.key) names \(target), of no entity of the model",
                                              context: ["entity": entity.name, "keyPath": property.name])
                        }
                        destinations[property.name] = id
                    case .references:
                        throw StrataError(.corrupt, "\(entity.name).\(property.name) of \(view.key) holds a list where one value belongs",
                                          context: ["entity": entity.name, "keyPath": property.name])
                    }
                }
                guard let id = store.objectID(for: view.key) else {
                    throw StrataError(.corrupt, "a match of \(view.key) is of no entity of the model", context: ["entity": entity.name])
                }
                results.append(FetchedValues(objectID: id, values: values, destinations: destinations))
                return true
            }
        }
        return results
    }

    /// The properties a dictionary fetch reads: those named, each a stored attribute or
    /// a to-one relationship of `entity` (nil: all of them, in the model's order).
    private func dictionaryProperties(_ named: [String]?, of entity: EntityDescription) throws -> [String] {
        guard let named else {
            return entity.attributes.filter { !$0.isTransient }.map(\.name) + entity.relationships.filter { !$0.isToMany }.map(\.name)
        }
        for name in named {
            if let attribute = entity.attributesByName[name] {
                guard !attribute.isTransient else {
                    throw StrataError(.invalidArgument, "\(entity.name).\(name) is transient: a dictionary fetch reads stored values only",
                                      context: ["entity": entity.name, "keyPath": name])
                }
            } else if let relationship = entity.relationshipsByName[name] {
                guard !relationship.isToMany else {
                    throw StrataError(.invalidArgument, "\(entity.name).\(name) is a to-many relationship: a dictionary fetch reads attributes and to-one relationships",
                                      context: ["entity": entity.name, "keyPath": name])
                }
            } else {
                throw StrataError(.unknownKeyPath, "\(entity.name) has no property '\(name)' to fetch", context: ["entity": entity.name, "keyPath": name])
            }
        }
        // Each once, in the order first named.
        var seen: Set<String> = []
        return named.filter { seen.insert($0).inserted }
    }
}
