import ArgumentParser
import Foundation
import Strata
import StrataImport

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
    static let chunkSize = 512

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
                let attributes = entity.storedAttributes.filter { blobs || !$0.allowsExternalStorage }
                let relationships = plan.writtenRelationships(of: entity)
                if !relationships.contains(where: \.isToMany) {
                    try Self.stream(entity, attributes: attributes, toOnes: relationships, store: objectStore, values: values, to: output)
                    continue
                }
                var request = FetchRequest(entityName: entity.name)
                request.includesSubentities = false
                let ids = try context.fetchObjectIDs(request)
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

    /// Writes an entity whose lines hold attributes and to-ones only straight from its
    /// records (`ObjectStore.enumerateStoredValues`): no context, no managed object,
    /// no dictionary per line; the same bytes as the general path above, which the
    /// export tests compare.
    private static func stream(_ entity: EntityDescription, attributes: [AttributeDescription], toOnes: [RelationshipDescription],
                               store: ObjectStore, values: JSONLines, to output: StandardOutput) throws {
        enum Slot { case entity, id, attribute(Int), toOne(Int) }
        let keys = [JSONLines.entityKey, JSONLines.idKey] + attributes.map(\.name) + toOnes.map(\.name)
        let slots: [Slot] = [.entity, .id] + attributes.indices.map(Slot.attribute) + toOnes.indices.map(Slot.toOne)
        let order = try JSONLineWriter.keyOrder(keys)
        // Each key with its quote, colon and the comma before it, once.
        let encodedKeys: [[UInt8]] = order.enumerated().map { position, index in
            var key = JSONLineWriter()
            if position > 0 { key.append(raw: ",") }
            key.appendKey(keys[index])
            return key.bytes
        }
        var entityValue = JSONLineWriter()
        entityValue.appendString(entity.name)
        let uris = URIPrefixes()
        // The writer is the batch closure's own (a captured variable would be boxed
        // and every append checked for exclusivity at run time).
        try store.enumerateStoredValues(entityName: entity.name, attributes: attributes.map(\.name),
                                        toOneRelationships: toOnes.map(\.name), batchSize: chunkSize) { batch in
            var writer = JSONLineWriter()
            for object in batch {
                writer.append(raw: "{")
                for (position, index) in order.enumerated() {
                    writer.append(raw: encodedKeys[position])
                    switch slots[index] {
                    case .entity: writer.append(raw: entityValue.bytes)
                    case .id: uris.append(object.objectID, to: &writer)
                    case .attribute(let number):
                        // The common scalars directly; the rest as `JSONLines.json` gives them.
                        switch object.values[number] {
                        case .null: writer.append(raw: "null")
                        case .string(let text): writer.appendString(text)
                        case .int(let integer): writer.appendInteger(integer)
                        case .bool(let flag): writer.append(raw: flag ? "true" : "false")
                        case .double(let double) where double.isFinite: writer.appendDouble(double)
                        case let value: try writer.append(values.json(value, of: attributes[number]))
                        }
                    case .toOne(let number):
                        if let destination = object.destinations[number] {
                            writer.append(raw: "{")
                            writer.appendKey(JSONLines.idKey)
                            uris.append(destination, to: &writer)
                            writer.append(raw: "}")
                        } else {
                            writer.append(raw: "null")
                        }
                    }
                }
                writer.append(raw: "}\n")
            }
            try output.write(writer.bytes)
        }
    }

    /// Object URIs as bytes: `"strata://STORE/ENTITY/` made once per entity, then the
    /// serial. The last entity's prefix is kept aside: an export names one entity per
    /// object and rarely another, and a dictionary lookup per object would add a hash
    /// to every line.
    private final class URIPrefixes {
        private var prefixes: [String: [UInt8]] = [:]
        private var last: (entity: String, bytes: [UInt8])?

        func append(_ id: ObjectID, to writer: inout JSONLineWriter) {
            if let last, last.entity == id.entityName {
                writer.append(raw: last.bytes)
            } else {
                if prefixes[id.entityName] == nil {
                    var prefix = JSONLineWriter()
                    prefix.appendString("strata://\(id.storeIdentifier)/\(id.entityName)/")
                    prefixes[id.entityName] = Array(prefix.bytes.dropLast())
                }
                let bytes = prefixes[id.entityName] ?? []
                last = (id.entityName, bytes)
                writer.append(raw: bytes)
            }
            writer.appendInteger(Int64(bitPattern: id.serial))
            writer.append(raw: "\"")
        }
    }

    private static func reference(_ object: ManagedObject) -> JSONValue {
        .object([JSONLines.idKey: .string(object.objectID.uriRepresentation)])
    }
}
