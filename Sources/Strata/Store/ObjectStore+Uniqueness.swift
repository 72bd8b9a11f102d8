import Foundation
import StrataLog

extension ObjectStore {
    /// Stored objects in a uniqueness rule's scope whose values equal `values` under
    /// the model's own equality (Swift `==` on `Value`), at most `limit`, leaving out
    /// the keys `excluding` names.
    ///
    /// The index gives candidates: every object whose term is one an equal value may
    /// carry. Each candidate is then decoded and compared, so a long string sharing a
    /// 1,024-byte prefix, or a decimal rounding to the same double, is not a duplicate.
    /// When the store's terms are not exact (a store written before `strata.terms`)
    /// and a value's old term could differ from an equal value's (a non-ASCII string, a
    /// composite), or the rule covers an external binary in a store written before
    /// `strata.blobTerms`, the scope is scanned in pages instead: slower, never wrong.
    ///
    /// - Throws: storage errors, `.corrupt` for a record that does not decode.
    /// `prefetched` holds the keys of terms already looked up (``prefetchedTerms(_:)``);
    /// a term it lacks is looked up here.
    func storedDuplicates(
        of values: [Value], for constraint: UniqueConstraint, limit: Int = 1,
        prefetched: [IndexTerm: [RecordKey]]? = nil, excluding: (RecordKey) -> Bool
    ) throws -> [RecordKey] {
        guard !values.contains(where: \.isNull) else { return [] }
        var found: [RecordKey] = []
        func confirm(_ keys: [RecordKey]) throws {
            let candidates = keys.filter { constraint.scopeTags.contains(StoreSchema.tag(of: $0)) && !excluding($0) }
            guard !candidates.isEmpty else { return }
            for (key, record) in zip(candidates, try records.get(candidates)) where found.count < limit {
                guard let record, try storedValues(of: record, attributes: constraint.attributes) == values else { continue }
                found.append(key)
            }
        }
        if looksUpByTerm(values, for: constraint) {
            var keys = Set<RecordKey>()
            for term in UniqueConstraint.equalTerms(values, compound: constraint.isCompound) {
                let term = IndexTerm(index: constraint.termIndex, value: term)
                keys.formUnion(try prefetched?[term] ?? records.keys(for: term))
            }
            try confirm(keys.sorted())
            return found
        }
        for tag in constraint.scopeTags.sorted() {
            var after: RecordKey?
            while found.count < limit {
                let page = try records.keys(in: StoreSchema.range(tag: tag), after: after, limit: 256)
                guard let last = page.last else { break }
                try confirm(page)
                after = last
            }
        }
        return found
    }

    /// Whether ``storedDuplicates(of:for:limit:prefetched:excluding:)`` finds its
    /// candidates through the index (else it scans the rule's scope): the store's terms
    /// are exact, or the values' terms are the same in every store, and no external
    /// binary of a store written before `strata.blobTerms` (which has no term) is
    /// among the rule's attributes.
    private func looksUpByTerm(_ values: [Value], for constraint: UniqueConstraint) -> Bool {
        let termless = !blobTerms && constraint.attributes.contains { name in
            schema.shapes[constraint.entity]?.entity.attributesByName[name]?.allowsExternalStorage ?? false
        }
        return !termless && (exactTerms || values.allSatisfy(Self.hasSameTermInEveryStore))
    }

    /// The keys of every term that unique-value checks of `checks` will look up,
    /// asked in one call, on a store type that prefers it
    /// (``RecordStore/prefersBatchedLookups``) and for more than one check; nil
    /// otherwise, and each check asks for its own.
    func prefetchedTerms(_ checks: [(values: [Value], constraint: UniqueConstraint)]) throws -> [IndexTerm: [RecordKey]]? {
        guard records.prefersBatchedLookups, checks.count > 1 else { return nil }
        var terms: [IndexTerm] = []
        var asked = Set<IndexTerm>()
        for (values, constraint) in checks where !values.contains(where: \.isNull) && looksUpByTerm(values, for: constraint) {
            for value in UniqueConstraint.equalTerms(values, compound: constraint.isCompound) {
                let term = IndexTerm(index: constraint.termIndex, value: value)
                if asked.insert(term).inserted { terms.append(term) }
            }
        }
        guard !terms.isEmpty else { return [:] }
        return Dictionary(zip(terms, try records.keys(for: terms)), uniquingKeysWith: { first, _ in first })
    }

    /// The values a stored record holds for some attributes, an external binary read
    /// from the blob area; nil when its entity lacks one of them.
    func storedValues(of record: Record, attributes: [String]) throws -> [Value]? {
        try Self.storedValues(of: record, attributes: attributes, schema: schema, readBlob: { try records.readBlob($0) })
    }

    /// `storedValues(of:attributes:)` under any schema (a migration's destination,
    /// reading the store's records forward), blobs read through `readBlob`.
    static func storedValues(of record: Record, attributes: [String], schema: StoreSchema,
                             readBlob: (BlobRef) throws -> [UInt8]) throws -> [Value]? {
        guard let entity = schema.entityName(of: record.key), let layout = schema.shapes[entity]?.layout else { return nil }
        return try storedValues(of: try schema.decode(record), layout: layout, attributes: attributes, readBlob: readBlob)
    }

    /// `storedValues(of:attributes:)` of a record already decoded in `layout` (an
    /// in-place index build decodes each record once for all its uses).
    static func storedValues(of object: StoredObject, layout: StoreSchema.EntityLayout, attributes: [String],
                             readBlob: (BlobRef) throws -> [UInt8]) throws -> [Value]? {
        var values: [Value] = []
        values.reserveCapacity(attributes.count)
        for name in attributes {
            guard let number = layout.fieldNumbers[name] else { return nil }
            switch number < object.fields.count ? object.fields[number] : .null {
            case .value(let value): values.append(value)
            case .blob(let ref, _): values.append(.binary(Data(try readBlob(ref))))
            default: values.append(.null)
            }
        }
        return values
    }

    /// Whether a value's term is the same under the encoding of stores written before
    /// `strata.terms` and under today's: everything but non-ASCII strings (now in
    /// canonical form) and composites (now indexed).
    static func hasSameTermInEveryStore(_ value: Value) -> Bool {
        switch value {
        case .string(let s): s.utf8.allSatisfy { $0 < 0x80 }
        case .composite: false
        default: true
        }
    }
}
