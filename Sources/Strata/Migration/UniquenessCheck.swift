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
        try add(rule: rule, term: term, key: key)
    }

    /// Adds an object's term for rule `rule` when the caller has it already: the term
    /// of its values with every zero positive (`UniqueConstraint.equalTerms(_:compound:)`'s
    /// first).
    mutating func add(rule: Int, term: [UInt8], key: RecordKey) throws {
        if sorter == nil {
            let dir = scratch.directory + "/strata-unique-check-\(UUID().uuidString)"
            try scratch.fileSystem.createDirectory(dir)
            directory = dir
            sorter = PackedTermSorter(path: dir + "/runs", fileSystem: scratch.fileSystem, budget: scratch.budget)
        }
        try sorter!.add(index: UInt32(rule), value: term, key: key, sequence: 0)
    }

    /// Lets go of the terms held in memory when the sort spills anyway
    /// (`PackedTermSorter.setAside`): before `finish` runs beside other work.
    mutating func setAside() throws {
        try sorter?.setAside()
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
        // Only a group of two or more is confirmed: the closure touches nothing of
        // `self` for the others (capturing it copied the check at every term).
        let rules = self.rules, schema = self.schema, records = self.records
        try sorter.drain { term in
            let rule = Int(term.index)
            if !group.isEmpty, rule == groupRule, groupTerm.withUnsafeBytes({ Self.equal(term.value, $0) }) {
                group.append(term.key)
                return
            }
            if group.count > 1 { try Self.confirm(group, rules[groupRule], schema: schema, records: records) }
            group.removeAll(keepingCapacity: true)
            group.append(term.key)
            groupRule = rule
            groupTerm.removeAll(keepingCapacity: true)
            groupTerm.append(contentsOf: term.value)
        }
        if group.count > 1 { try Self.confirm(group, rules[groupRule], schema: schema, records: records) }
    }

    /// Whether two terms' bytes are the same (compared in place: the generic
    /// `elementsEqual` walks an iterator per byte).
    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
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
    private static func values(of record: Record, _ constraint: UniqueConstraint, schema: StoreSchema,
                               records: any RecordStore) throws -> [Value]? {
        guard let values = try ObjectStore.storedValues(of: record, attributes: constraint.attributes, schema: schema,
                                                        readBlob: { try records.readBlob($0) }),
              !values.contains(where: \.isNull) else { return nil }
        return values
    }

    /// Objects whose terms are equal: the first two whose values are equal fail.
    private static func confirm(_ keys: [RecordKey], _ rule: UniquenessScan.Rule, schema: StoreSchema, records: any RecordStore) throws {
        var seen: [(key: RecordKey, values: [Value])] = []
        for (key, record) in zip(keys, try records.get(keys)) {
            guard let record, let values = try values(of: record, rule.constraint, schema: schema, records: records) else { continue }
            if let other = seen.first(where: { $0.values == values }) {
                let objects = [other.key, key].compactMap { key in
                    schema.entityName(of: key).map { ObjectID(entityName: $0, key: key, storeIdentifier: "") }
                }
                throw rule.constraint.migrationViolation(values: values, objects: objects, sourceHash: rule.sourceHash,
                                                         destinationHash: rule.destinationHash)
            }
            seen.append((key, values))
        }
    }
}
