import Foundation
import Strata

/// What one read answered. A damaged store may refuse a read (a `StrataError`), never
/// answer it differently from the untouched store.
enum DamageAnswer: CustomStringConvertible {
    case value(Value)
    /// A to-one's destination key (nil: none).
    case key(UInt64?)
    /// Keys: sorted where the answer is a set (an unordered to-many, a fetch), in the
    /// store's order where it is ordered.
    case keys([UInt64])
    case count(Int)
    /// `.objectNotFound` where the read asks whether an object exists: an answer
    /// ("there is no such object"), not a refusal.
    case absent(String)
    /// Any other `StrataError`: the store refused the read.
    case refused(String)
    /// An error that is not a `StrataError`: a broken promise of its own.
    case foreign(String)

    var isRefusal: Bool { if case .refused = self { true } else { false } }

    /// Equal as the oracle judges: values by `==`, doubles also by bit pattern (NaN);
    /// refusals and absences by kind, whatever their message.
    func matches(_ other: DamageAnswer) -> Bool {
        switch (self, other) {
        case (.value(let a), .value(let b)): Self.same(a, b)
        case (.key(let a), .key(let b)): a == b
        case (.keys(let a), .keys(let b)): a == b
        case (.count(let a), .count(let b)): a == b
        case (.absent, .absent): true
        default: false
        }
    }

    static func same(_ a: Value, _ b: Value) -> Bool {
        if case .double(let x) = a, case .double(let y) = b { return x == y || x.bitPattern == y.bitPattern }
        return a == b
    }

    var description: String {
        switch self {
        case .value(let value):
            if case .binary(let data) = value { return "binary(\(data.count) bytes, first \(Array(data.prefix(4))))" }
            return "\(value)"
        case .key(let key): return key.map(DamageReading.keyName) ?? "nil"
        case .keys(let keys): return "[" + keys.map(DamageReading.keyName).joined(separator: ", ") + "]"
        case .count(let n): return "count \(n)"
        case .absent(let message): return "not found (\(message.prefix(80)))"
        case .refused(let message): return "refused (\(message.prefix(120)))"
        case .foreign(let message): return "non-StrataError \(message.prefix(120))"
        }
    }
}

/// Every read the oracle makes of a store, by name ("fetch Employee/3.name", "byID
/// Department/1.projects", "count Project", "unique Employee.badge = 104"), in the
/// order made. The same reads run against the untouched store (the baseline) and a
/// damaged one; `DamageJudge` compares them.
struct DamageReading {
    var names: [String] = []
    var answers: [String: DamageAnswer] = [:]

    /// The objects the baseline holds, entity → keys: the damaged store is read for
    /// these by id, and queried for their indexed and unique values.
    var objects: [String: [UInt64]] = [:]
    /// Each baseline object's indexed and unique values, for the index queries.
    var lookups: [(entity: String, attribute: String, value: Value)] = []

    /// Makes one read. `existence`: the read asks whether an object exists, so
    /// `.objectNotFound` is its answer; anywhere else it is a refusal (a reference the
    /// store cannot follow).
    mutating func record(_ name: String, existence: Bool = false, _ body: () throws -> DamageAnswer) {
        let answer: DamageAnswer
        do {
            answer = try body()
        } catch let error as StrataError where existence && error.code == .objectNotFound {
            answer = .absent(error.message)
        } catch let error as StrataError {
            answer = .refused(error.description)
        } catch {
            answer = .foreign("\(type(of: error)): \(error)")
        }
        if answers.updateValue(answer, forKey: name) == nil { names.append(name) }
    }

    static func keyName(_ key: UInt64) -> String {
        let tag = key >> 48, serial = key & 0xFFFF_FFFF_FFFF
        return "\(tag):\(serial)"
    }

    /// The entity-side reads: every attribute (external binaries' bytes too), each
    /// to-one's destination, each to-many's members (a set unless ordered).
    mutating func readObject(_ prefix: String, _ object: ManagedObject, entity: EntityDescription) {
        for attribute in entity.storedAttributes {
            record("\(prefix).\(attribute.name)") { .value(try object.value(forKey: attribute.name)) }
        }
        for relationship in entity.relationships {
            let name = "\(prefix).\(relationship.name)"
            if relationship.isToMany {
                record(name) {
                    let keys = try object.objects(relationship.name).map(\.objectID.key.rawValue)
                    return .keys(relationship.isOrdered ? keys : keys.sorted())
                }
            } else {
                record(name) { .key(try object.object(relationship.name)?.objectID.key.rawValue) }
            }
        }
    }

    /// Reads `store` as the oracle does. `baseline` is nil for the untouched store
    /// (whose objects and values then become the ones every damaged store is asked
    /// for), else the baseline reading.
    static func read(_ store: ObjectStore, baseline: DamageReading?) -> DamageReading {
        var reading = DamageReading()
        let model = store.model
        let entities = model.entities.sorted { $0.name < $1.name }

        // A compiled fetch first, in a context that holds nothing: its candidates are
        // judged on their records (a predicate on an attribute no index covers).
        do {
            let context = store.newContext()
            for (entity, format, argument) in compiledQueries {
                reading.record("compiled \(entity) \(format) \(argument)") {
                    let request = FetchRequest(entityName: entity, predicate: try Predicate(format: format, argument))
                    return .keys(try context.fetchObjectIDs(request).map(\.key.rawValue).sorted())
                }
            }
        }

        // Every object of every entity, by fetch.
        do {
            let context = store.newContext()
            for entity in entities {
                var fetched: [ManagedObject] = []
                reading.record("fetch \(entity.name)") {
                    fetched = try context.fetch(FetchRequest(entityName: entity.name))
                    return .keys(fetched.map(\.objectID.key.rawValue).sorted())
                }
                for object in fetched.sorted(by: { $0.objectID.key < $1.objectID.key }) {
                    reading.readObject("fetch \(keyName(object.objectID.key.rawValue))", object, entity: entity)
                }
                if baseline == nil { reading.objects[entity.name] = fetched.map(\.objectID.key.rawValue).sorted() }
            }
        }

        // The same objects by id, in a fresh context: the index's lookups, not a scan.
        let objects = baseline?.objects ?? reading.objects
        do {
            let context = store.newContext()
            for entity in entities {
                for key in objects[entity.name] ?? [] {
                    let id = ObjectID(entityName: entity.name, key: RecordKey(key), storeIdentifier: store.identifier)
                    let prefix = "byID \(keyName(key))"
                    var object: ManagedObject?
                    reading.record(prefix, existence: true) {
                        object = try context.existingObject(with: id)
                        return .key(key)
                    }
                    if let object { reading.readObject(prefix, object, entity: entity) }
                }
            }
        }

        // Counts: the manifest's counters plus the active segment's overlay.
        do {
            let context = store.newContext()
            for entity in entities {
                reading.record("count \(entity.name)") { .count(try context.count(for: FetchRequest(entityName: entity.name))) }
            }
        }

        // Each baseline object by its indexed and unique values.
        if baseline == nil {
            for entity in entities {
                for attribute in entity.storedAttributes where attribute.isIndexed || attribute.isUnique {
                    for key in objects[entity.name] ?? [] {
                        guard case .value(let value)? = reading.answers["fetch \(keyName(key)).\(attribute.name)"], !value.isNull else { continue }
                        reading.lookups.append((entity.name, attribute.name, value))
                    }
                }
            }
        }
        do {
            let context = store.newContext()
            for lookup in baseline?.lookups ?? reading.lookups {
                reading.record("index \(lookup.entity).\(lookup.attribute) == \(lookup.value)") {
                    let request = FetchRequest(entityName: lookup.entity, predicate: .key(lookup.attribute) == .constant(lookup.value))
                    return .keys(try context.fetchObjectIDs(request).map(\.key.rawValue).sorted())
                }
            }
        }
        if baseline == nil { reading.objects = objects }
        return reading
    }

    /// Fetches whose predicates no index answers: judged record by record.
    static let compiledQueries: [(String, String, Double)] = [
        ("Employee", "salary > %@", 2000),
        ("Employee", "salary < %@", 0.5),
    ]
}
