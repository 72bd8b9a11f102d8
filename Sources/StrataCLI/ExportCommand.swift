import ArgumentParser
import Foundation
import Strata

/// `strata export STORE [--entity NAME] [--blobs]`: the store as JSON Lines, one
/// object a line, in the format `import` reads.
///
/// Each line carries `"@entity"`, `"@id"` (the object's URI) and the stored
/// attributes — null ones too, so an import does not put defaults in their place —
/// and relationships as `{"@id": …}` (see `ExportPlan` for which side of a pair).
/// External-storage binaries are written only with `--blobs`: without it no blob
/// byte is read.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the store's objects as JSON Lines on standard output."
    )

    @Argument(help: "The store directory.")
    var store: String

    @Option(name: .long, help: "Export only this entity (and its sub-entities).")
    var entity: String?

    @Flag(name: .long, help: "Include external-storage binaries (read from the blob area).")
    var blobs = false

    /// Objects read between context resets, so memory stays flat.
    static let chunkSize = 256

    func run() throws {
        try reportingFailures {
            let objectStore = try StoreAccess.openObjectStore(store, readOnly: true)
            defer { try? objectStore.close() }
            let plan = try ExportPlan(model: objectStore.model, entityName: entity)
            let omitted = plan.entities.flatMap { e in
                e.storedAttributes.filter { $0.allowsExternalStorage && !blobs }.map { "\(e.name).\($0.name)" }
            }
            if !omitted.isEmpty {
                Terminal.error("note: external-storage attributes not exported (add --blobs to include them): \(omitted.joined(separator: ", "))")
            }
            let output = StandardOutput()
            let values = JSONLines()
            let coder = JSONLineCoder()
            let context = objectStore.newContext()
            for entity in plan.entities {
                var request = FetchRequest(entityName: entity.name)
                request.includesSubentities = false
                let ids = try context.fetchObjectIDs(request)
                let attributes = entity.storedAttributes.filter { blobs || !$0.allowsExternalStorage }
                let relationships = plan.writtenRelationships(of: entity)
                var start = 0
                while start < ids.count {
                    for id in ids[start..<min(ids.count, start + Self.chunkSize)] {
                        let object = try context.object(with: id)
                        var fields: [String: JSONValue] = [
                            JSONLines.entityKey: .string(entity.name),
                            JSONLines.idKey: .string(id.uriRepresentation),
                        ]
                        for attribute in attributes {
                            fields[attribute.name] = values.json(try object.value(forKey: attribute.name), of: attribute)
                        }
                        for relationship in relationships {
                            fields[relationship.name] = relationship.isToMany
                                ? .array(try object.objects(relationship.name).map(Self.reference))
                                : try object.object(relationship.name).map(Self.reference) ?? .null
                        }
                        try output.writeLine(try coder.encode(.object(fields)))
                    }
                    context.reset()
                    start += Self.chunkSize
                }
            }
            try output.flush()
        }
    }

    private static func reference(_ object: ManagedObject) -> JSONValue {
        .object([JSONLines.idKey: .string(object.objectID.uriRepresentation)])
    }
}
