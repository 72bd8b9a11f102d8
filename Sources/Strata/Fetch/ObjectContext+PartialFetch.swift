import StrataLog

/// Partial faulting (`FetchRequest.propertiesToFetch`).
///
/// A fetch that names properties loads those values into the objects it returns (they
/// are not faults) and keeps nothing else of the record: memory follows the properties
/// asked for, as a list screen of names wants. Reading any other stored property loads
/// the whole record then — for the object and, batch-faulting, for up to a batch of its
/// partially loaded fetch siblings. External binaries stay references until read, as
/// always.
///
/// The hook: `ManagedObject.loadedFieldNumbers` (Context/ManagedObject.swift) says
/// which fields `stored` really holds; `field(_:)` serves those and `fire()` calls
/// `completePartialObject(_:)` for the rest.
extension ObjectContext {
    /// Loads the named properties into those of `objects` that are faults now, reading
    /// their records a batch at a time and keeping only the named fields. Objects
    /// already loaded (or new, or changed) stay as they are; so do objects a predicate
    /// made this fetch read whole, which are trimmed to the named fields, since nothing
    /// outside the fetch has seen them loaded.
    func loadPartially(_ objects: [ManagedObject], properties names: [String], loadedByFetch: Set<RecordKey>) throws {
        guard !objects.isEmpty else { return }
        var numbers: [String: Set<Int>] = [:]
        func fieldNumbers(_ object: ManagedObject) -> Set<Int> {
            if let known = numbers[object.entity.name] { return known }
            let set = Set(names.compactMap { object.layout.fieldNumbers[$0] })
            numbers[object.entity.name] = set
            return set
        }
        let candidates = objects.filter { !$0.hasChanges && !$0.isNew }
        var start = 0
        while start < candidates.count {
            let slice = Array(candidates[start..<min(candidates.count, start + Self.fetchScanBatch)])
            start += Self.fetchScanBatch
            let faults = slice.filter(\.isFault)
            let faultKeys = Set(faults.map(\.recordKey))
            let records = try store.records.get(faults.map(\.recordKey))
            for (object, record) in zip(faults, records) {
                guard let record else { continue }
                object.stored = try schema.decode(record)
            }
            for object in slice where loadedByFetch.contains(object.recordKey) || faultKeys.contains(object.recordKey) {
                guard var stored = object.stored, object.blobCache.isEmpty else { continue }
                let keep = fieldNumbers(object)
                for number in stored.fields.indices where !keep.contains(number) { stored.fields[number] = .null }
                object.stored = stored
                object.loadedFieldNumbers = keep
                object.faultGroup = nil
            }
        }
        // Completing one object completes its partial siblings too, a batch at a time.
        let group = FaultGroup(keys: objects.map(\.recordKey))
        group.adopt(objects) { $0.loadedFieldNumbers != nil }
    }

    /// Loads the whole record of a partially loaded object (the hook's other half),
    /// with those of up to a batch of its partially loaded fetch siblings.
    ///
    /// - Throws: `.objectNotFound` when the store no longer has the object.
    func completePartialObject(_ object: ManagedObject) throws {
        let key = object.recordKey
        var keys = [key]
        if let group = object.faultGroup {
            keys = group.batch(of: object, size: store.options.faultBatchSize).map(\.key).filter { k in
                k == key || registry[k]?.object?.loadedFieldNumbers != nil
            }
        }
        let records = try store.records.get(keys)
        for (k, record) in zip(keys, records) {
            guard let record, let sibling = registry[k]?.object ?? (k == key ? object : nil) else { continue }
            guard sibling.loadedFieldNumbers != nil || sibling.stored == nil else { continue }
            sibling.stored = try schema.decode(record)
            sibling.loadedFieldNumbers = nil
            sibling.faultGroup = nil
        }
        if object.loadedFieldNumbers != nil {
            object.loadedFieldNumbers = nil
            object.stored = nil
            object.faultGroup = nil
            throw StrataError(.objectNotFound, "\(object.objectID) does not exist in the store (deleted, or never saved)",
                              context: ["object": object.objectID.uriRepresentation])
        }
    }
}
