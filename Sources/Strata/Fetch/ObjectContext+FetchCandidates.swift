import Foundation
import StrataLog

extension ObjectContext {
    /// All keys of the entity's ranges, or fewer when an indexed (or unique) attribute
    /// in the predicate narrows them: equality, IN and ranges; several such conditions
    /// intersect. The predicate is still
    /// evaluated on every candidate, so the index only has to give a superset.
    func candidateKeys(_ request: FetchRequest, entity: EntityDescription, tags: [UInt16]) throws -> [RecordKey] {
        let layout = try schema.layout(entity.name)
        if let predicate = request.predicate {
            // The conditions are AND-ed: the intersection of what each index serves
            // (`age >= 10 AND age < 15` is two half-open ranges) is still a superset.
            var served: Set<RecordKey>?
            for condition in predicate.indexableConditions() {
                guard let number = layout.fieldNumbers[condition.key], let index = layout.fields[number].termIndex,
                      case .attribute(let type, _) = layout.fields[number].kind,
                      let keys = indexedKeys(condition, type: type, index: index) else { continue }
                served = served.map { $0.intersection(keys) } ?? Set(keys)
            }
            if let served {
                let tagSet = Set(tags)
                return served.filter { tagSet.contains(StoreSchema.tag(of: $0)) }.sorted()
            }
        }
        var keys: [RecordKey] = []
        for tag in tags.sorted() { keys += store.records.keys(in: StoreSchema.range(tag: tag)) }
        return keys
    }

    /// The keys an index holds for a condition, or nil when the index cannot answer it
    /// (a constant of another kind than the attribute, null) and the entity is scanned.
    private func indexedKeys(_ condition: IndexableCondition, type: AttributeType, index: UInt32) -> [RecordKey]? {
        switch condition.kind {
        case .equalTo(let value):
            guard let term = Self.term(value, for: type) else { return nil }
            return store.records.keys(for: IndexTerm(index: index, value: term))
        case .oneOf(let values):
            var keys: [RecordKey] = []
            for value in values {
                guard let term = Self.term(value, for: type) else { return nil }
                keys += store.records.keys(for: IndexTerm(index: index, value: term))
            }
            return keys
        case .range(let lower, let upper):
            var low: [UInt8]?
            var high: [UInt8]?
            if let lower {
                guard let term = Self.term(lower.value, for: type) else { return nil }
                low = term
            }
            if let upper {
                guard let term = Self.term(upper.value, for: type) else { return nil }
                high = term
            }
            // Terms of strings, URLs and binaries are truncated and decimals are
            // rounded to doubles: two different values may share a term, so an
            // exclusive bound could drop a match. Those ranges stay inclusive and the
            // predicate trims the edge.
            let exact = Self.hasExactTerms(type)
            return store.records.keys(index: index, from: low, through: high,
                                      lowerInclusive: !exact || (lower?.isInclusive ?? true),
                                      upperInclusive: !exact || (upper?.isInclusive ?? true))
        }
    }

    /// The index term of a predicate constant as the attribute would store it: an
    /// integer constant against a Double attribute is the same number as a double, and
    /// so on. Nil when the constant cannot be stored in the attribute exactly.
    static func term(_ value: Value, for type: AttributeType) -> [UInt8]? {
        let stored: Value
        switch (value, type) {
        case (.int(let i), .float), (.int(let i), .double):
            // Beyond 2^53 a Double cannot hold every integer: scan instead.
            guard let d = Double(exactly: i) else { return nil }
            stored = .double(d)
        case (.double(let d), .int16), (.double(let d), .int32), (.double(let d), .int64):
            guard let i = Int64(exactly: d) else { return nil }
            stored = .int(i)
        case (.int(let i), .decimal):
            stored = .decimal(Decimal(i))
        case (.double(let d), .decimal):
            stored = .double(d) // decimal terms are their double value
        default:
            guard value.conforms(to: type) else { return nil }
            stored = value
        }
        return ObjectCodec.orderedBytes(stored)
    }

    private static func hasExactTerms(_ type: AttributeType) -> Bool {
        switch type {
        case .string, .url, .binary, .decimal, .composite: false
        default: true
        }
    }
}
