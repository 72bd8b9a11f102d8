import Foundation
import Strata

/// Object-level checks of `strata verify`, over the public API: every object's record
/// decodes with the store's model and its values have their attributes' types; every
/// to-one reference (and every stored to-many's member) is an existing object of
/// the destination entity; no record lies outside the model's entities.
///
/// External-storage binaries are not read (the engine's check covers their blob
/// references and checksums). Objects are visited in chunks with a context reset in
/// between, so memory follows the number of ids, not the records.
struct ObjectVerifier {
    let store: ObjectStore

    struct Report: CustomStringConvertible {
        var entities = 0
        var objects = 0
        var problems: [String] = []

        var description: String {
            var text = "objects: checked \(objects) objects of \(entities) entities: " + (problems.isEmpty ? "sound" : "\(problems.count) problem(s)")
            for problem in problems { text += "\n  " + problem }
            return text
        }
    }

    /// Stop listing after this many problems: a badly damaged store says enough by then.
    static let problemLimit = 1_000

    func run() throws -> Report {
        var report = Report()
        let context = store.newContext()
        var seen = Set<RecordKey>()
        for entity in store.model.entities {
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            let ids = try context.fetchObjectIDs(request)
            report.entities += 1
            var start = 0
            while start < ids.count {
                for id in ids[start..<min(ids.count, start + 256)] {
                    seen.insert(id.key)
                    report.objects += 1
                    for problem in check(id, entity: entity, context: context) where report.problems.count < Self.problemLimit {
                        report.problems.append("object \(id) (\(id.uriRepresentation)): \(problem)")
                    }
                }
                context.reset()
                start += 256
            }
        }
        for problem in store.historyProblems(limit: Self.problemLimit) where report.problems.count < Self.problemLimit {
            report.problems.append("history: \(problem.message)" + (problem.context["key"].map { " (record key \($0))" } ?? ""))
        }
        for key in try store.records.keys(in: nil) where !seen.contains(key) && report.problems.count < Self.problemLimit {
            // Serial 0 of each entity's key range is its id counter, not an object; edge
            // records of stored to-manys are checked through their owners' lists.
            if ObjectID(entityName: "", key: key, storeIdentifier: "").serial == 0 { continue }
            if store.edgeRelationName(forKey: key) != nil { continue }
            if ObjectStore.isHistoryKey(key) { continue }
            report.problems.append("record key \(String(key.rawValue, radix: 16)) belongs to no entity of the store's model")
        }
        return report
    }

    private func check(_ id: ObjectID, entity: EntityDescription, context: ObjectContext) -> [String] {
        var problems: [String] = []
        do {
            let object = try context.existingObject(with: id)
            for attribute in entity.storedAttributes where !attribute.allowsExternalStorage {
                let value = try object.value(forKey: attribute.name)
                if !value.isNull && !value.conforms(to: attribute.type) {
                    problems.append("\(attribute.name) holds a value that is not \(attribute.type.rawValue)")
                }
            }
            for relationship in entity.relationships {
                let targets: [ManagedObject]
                if !relationship.isToMany {
                    targets = try object.object(relationship.name).map { [$0] } ?? []
                } else if isStoredList(relationship) {
                    targets = try object.objects(relationship.name)
                } else {
                    continue  // derived from the to-one side, which is checked there
                }
                for target in targets {
                    if try !store.records.contains(target.objectID.key) {
                        problems.append("\(relationship.name) → \(target.objectID): no such object")
                    } else if !target.entity.isKind(of: relationship.destinationEntityName) {
                        problems.append("\(relationship.name) → \(target.objectID): a \(target.entity.name), not a \(relationship.destinationEntityName)")
                    }
                }
            }
        } catch let error as StrataError {
            problems.append("does not decode with the store's model: \(error.message)")
        } catch {
            problems.append("does not decode with the store's model: \(error)")
        }
        return problems
    }

    /// A to-many is stored (as edge records) unless a to-one inverse derives it (docs/FORMAT.md §11).
    private func isStoredList(_ relationship: RelationshipDescription) -> Bool {
        if relationship.isOrdered { return true }
        guard let inverseName = relationship.inverseName,
              let inverse = store.model.entity(named: relationship.destinationEntityName)?.relationshipsByName[inverseName] else { return true }
        return inverse.isToMany
    }
}
