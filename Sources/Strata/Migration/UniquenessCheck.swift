import Foundation
import StrataLog

/// Uniqueness rules checked against objects handed over one by one, writing nothing
/// to the store: each object gives each rule its term (the bytes its values index
/// under, zero's sign folded), the (rule, term, key) triples are sorted as packed byte
/// runs (`PackedTermSorter`: in memory up to the budget, sorted runs spilled to a
/// scratch directory outside the store beyond it) and merged, so that equal terms of
/// one rule meet. Objects whose terms meet are read again and compared with the
/// model's equality (terms are cut at 1,024 bytes), and the first equal pair fails.
///
/// Memory follows the budget and the largest group of equal terms, never the store:
/// an external merge sort, as SQLite builds an index over a table larger than its
/// cache (`CREATE UNIQUE INDEX` fails on the first duplicate it meets, as this does).
/// Fed by the pass that builds a new rule's terms (`InPlaceMigration.buildIndexes`),
/// or by a scan of its own (`UniquenessScan`) for a rule whose terms are there already.
struct UniquenessCheck {
    let rules: [UniquenessScan.Rule]
    let schema: StoreSchema
    let records: any RecordStore
    private let scratch: UniquenessScan.Scratch
    private var sorter: PackedTermSorter?
    private var directory: String?

    init(rules: [UniquenessScan.Rule], schema: StoreSchema, records: any RecordStore, scratch: UniquenessScan.Scratch) {
        self.rules = rules
        self.schema = schema
        self.records = records
        self.scratch = scratch
    }

    /// Adds an object's values for rule `rule` (a position in `rules`); values with a
    /// null are no value (null-distinct, as in SQL).
    mutating func add(rule: Int, values: [Value], key: RecordKey) throws {
        guard !values.contains(where: \.isNull),
              let term = UniqueConstraint.equalTerms(values, compound: rules[rule].constraint.isCompound).first else { return }
        if sorter == nil {
            let dir = scratch.directory + "/strata-unique-check-\(UUID().uuidString)"
            try scratch.fileSystem.createDirectory(dir)
            directory = dir
            sorter = PackedTermSorter(path: dir + "/runs", fileSystem: scratch.fileSystem, budget: scratch.budget)
        }
        try sorter!.add(index: UInt32(rule), value: term, key: key, sequence: 0)
    }

    /// Merges the terms and confirms each group of equal ones.
    /// - Throws: `.uniquenessViolation` naming the rule (`entity`, `properties`), the
    ///   `value` and both `objects`; storage errors; `.corrupt`.
    mutating func finish() throws {
        defer { discard() }
        // Taken out, so that the drain's sort works on the only copy of its slots.
        guard var sorter else { return }
        self.sorter = nil
        var group: [RecordKey] = []
        var groupRule = 0
        var groupTerm: [UInt8] = []
        try sorter.drain { term in
            let rule = Int(term.index)
            if !group.isEmpty, rule == groupRule, term.value.elementsEqual(groupTerm) {
                group.append(term.key)
                return
            }
            try confirm(group, rules[groupRule])
            group.removeAll(keepingCapacity: true)
            group.append(term.key)
            groupRule = rule
            groupTerm.removeAll(keepingCapacity: true)
            groupTerm.append(contentsOf: term.value)
        }
        if !group.isEmpty { try confirm(group, rules[groupRule]) }
    }

    /// Removes the scratch directory (the store never held it).
    mutating func discard() {
        sorter?.discard()
        sorter = nil
        if let directory { try? scratch.fileSystem.remove(directory) }
        directory = nil
    }

    /// The values a rule reads from a stored record (an external binary read from the
    /// blob area); nil when one is null or the record's entity lacks one of them.
    private func values(of record: Record, _ constraint: UniqueConstraint) throws -> [Value]? {
        guard let values = try ObjectStore.storedValues(of: record, attributes: constraint.attributes, schema: schema,
                                                        readBlob: { try records.readBlob($0) }),
              !values.contains(where: \.isNull) else { return nil }
        return values
    }

    /// Objects whose terms are equal: the first two whose values are equal fail.
    private func confirm(_ keys: [RecordKey], _ rule: UniquenessScan.Rule) throws {
        guard keys.count > 1 else { return }
        var seen: [(key: RecordKey, values: [Value])] = []
        for (key, record) in zip(keys, try records.get(keys)) {
            guard let record, let values = try values(of: record, rule.constraint) else { continue }
            if let other = seen.first(where: { $0.values == values }) {
                throw violation(rule, values: values, keys: [other.key, key])
            }
            seen.append((key, values))
        }
    }

    private func violation(_ rule: UniquenessScan.Rule, values: [Value], keys: [RecordKey]) -> StrataError {
        let objects = keys.compactMap { key in
            schema.entityName(of: key).map { ObjectID(entityName: $0, key: key, storeIdentifier: "") }
        }
        return rule.constraint.migrationViolation(values: values, objects: objects, sourceHash: rule.sourceHash,
                                                  destinationHash: rule.destinationHash)
    }
}
