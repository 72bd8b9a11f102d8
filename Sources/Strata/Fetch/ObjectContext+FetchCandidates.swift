import Foundation
import StrataLog

extension ObjectContext {
    /// All keys of the entity's ranges, or fewer when an indexed (or unique) attribute
    /// in the predicate narrows them: equality, IN and ranges; several such conditions
    /// intersect. The predicate is still
    /// evaluated on every candidate, so the index only has to give a superset.
    func candidateKeys(_ request: FetchRequest, entity: EntityDescription, tags: [UInt16]) throws -> [RecordKey] {
        if let indexed = try indexedCandidates(request, entity: entity, tags: tags) { return indexed.located.map(\.key) }
        var keys: [RecordKey] = []
        for tag in tags.sorted() { keys += try store.records.keys(in: StoreSchema.range(tag: tag)) }
        return keys
    }

    /// The candidates the indexes serve for a request's predicate, ascending, each with
    /// where its current version lies (read without a second lookup), and the
    /// conditions that served them (`explain` shows them; they are formatted only
    /// there, not by every fetch); nil when no index helps
    /// and the entity's ranges are scanned.
    ///
    /// An index that cannot be read (its file damaged and its segment too, so it cannot
    /// be rebuilt) is logged at error level and the request is answered by the scan:
    /// the predicate judges every record, so the answer stays whole. Answering from
    /// what the index could give would silently miss objects the store holds.
    func indexedCandidates(_ request: FetchRequest, entity: EntityDescription, tags: [UInt16]) throws -> (located: [LocatedKey], conditions: [Predicate])? {
        do {
            return try indexServedCandidates(request, entity: entity, tags: tags)
        } catch let error as StrataError where error.code == .corrupt {
            store.logger.error("an index could not be read; the fetch scans the entity instead",
                               metadata: ["entity": "\(entity.name)", "error": "\(error)"])
            return nil
        }
    }

    private func indexServedCandidates(_ request: FetchRequest, entity: EntityDescription, tags: [UInt16]) throws -> (located: [LocatedKey], conditions: [Predicate])? {
        let layout = try schema.layout(entity.name)
        guard let predicate = request.predicate else { return nil }
        // The conditions are AND-ed: the intersection of what each index serves
        // (`age >= 10 AND age < 15` is two half-open ranges) is still a superset.
        var served: [LocatedKey]?
        var used: [Predicate] = []
        func serve(_ found: [LocatedKey]) {
            guard let before = served else { served = found; return }
            let keys = Set(found.lazy.map(\.key))
            served = before.filter { keys.contains($0.key) }
        }
        for condition in predicate.indexableConditions() {
            guard let number = layout.fieldNumbers[condition.key], let index = layout.fields[number].termIndex,
                  case .attribute(let type, let external) = layout.fields[number].kind,
                  !external || store.blobTerms,  // external binaries had no term before `strata.blobTerms`
                  let keys = try indexedKeys(condition, type: type, index: index) else { continue }
            serve(keys)
            used.append(condition.source)
        }
        for condition in Self.prefixConditions(predicate) where store.exactTerms {
            guard let number = layout.fieldNumbers[condition.key], let index = layout.fields[number].termIndex,
                  case .attribute(.string, _) = layout.fields[number].kind else { continue }
            // Terms are the strings' NFC UTF-8, cut at 1,024 bytes: every string that
            // begins with an ASCII prefix has a term in [prefix, prefix with its last
            // byte raised), its first 1,024 bytes at most.
            let low = Array(condition.prefix.utf8.prefix(1024))
            var high = low
            high[high.count - 1] += 1
            serve(try store.records.locatedKeys(index: index, from: low, through: high, lowerInclusive: true, upperInclusive: false))
            used.append(condition.source)
        }
        // `department == %@`: a to-one's terms are its destinations' keys (the index
        // that derives the inverse to-many), so the objects that point at one object
        // are one equality read.
        for condition in Self.objectConditions(predicate) {
            guard let number = layout.fieldNumbers[condition.key], layout.fields[number].kind == .toOne,
                  let index = layout.fields[number].termIndex else { continue }
            let term = ObjectCodec.bigEndian(condition.object.key.rawValue)
            serve(try store.records.locatedKeys(index: index, from: term, through: term, lowerInclusive: true, upperInclusive: true))
            used.append(condition.source)
        }
        guard var served else { return nil }
        // IN lists and the two zeros give several sorted runs, which may share keys.
        if served.indices.dropFirst().contains(where: { served[$0 - 1].key >= served[$0].key }) { served.sort { $0.key < $1.key } }
        var previous: RecordKey?
        served.removeAll { located in
            defer { previous = located.key }
            return located.key == previous || !tags.contains(StoreSchema.tag(of: located.key))
        }
        return (served, used)
    }

    /// The top-level `AND`-ed `key BEGINSWITH 'prefix'` comparisons an index of strings
    /// can serve as a range: a plain key, no `[c]`/`[d]` folding, no quantifier, and a
    /// non-empty ASCII prefix (whose bytes every matching string's canonical form
    /// starts with; a prefix beyond ASCII is judged by a scan).
    static func prefixConditions(_ predicate: Predicate) -> [(key: String, prefix: String, source: Predicate)] {
        switch predicate {
        case .and(let operands):
            return operands.flatMap(prefixConditions)
        case .comparison(let c):
            guard c.op == .beginsWith, c.quantifier == .direct, c.options.isEmpty, case .keyPath(let key) = c.lhs,
                  !key.utf8.contains(UInt8(ascii: ".")), case .constant(.string(let prefix)) = c.rhs,
                  !prefix.isEmpty, prefix.utf8.allSatisfy({ $0 < 0x7F }) else { return [] }
            return [(key, prefix, predicate)]
        default:
            return []
        }
    }

    /// The top-level `AND`-ed `key == object` comparisons (either side the key, a plain
    /// key, no quantifier or option) a to-one's index can serve. An object of another
    /// store matches nothing, and its key only widens the candidates: the predicate
    /// still judges each.
    static func objectConditions(_ predicate: Predicate) -> [(key: String, object: ObjectID, source: Predicate)] {
        switch predicate {
        case .and(let operands):
            return operands.flatMap(objectConditions)
        case .comparison(let c):
            guard c.op == .equalTo, c.quantifier == .direct, c.options.isEmpty else { return [] }
            switch (c.lhs, c.rhs) {
            case (.keyPath(let key), .object(let id)), (.object(let id), .keyPath(let key)):
                guard !key.utf8.contains(UInt8(ascii: ".")) else { return [] }
                return [(key, id, predicate)]
            default:
                return []
            }
        default:
            return []
        }
    }

    /// The keys an index holds for a condition, or nil when the index cannot answer it
    /// (a constant of another kind than the attribute, null) and the entity is scanned.
    ///
    /// The answer is a superset of the matches (the predicate judges every candidate),
    /// so it must hold every object whose value equals the constant under the model's
    /// equality: equal values share a term (strings in canonical form) except zero,
    /// whose two signs are both looked up. In a store whose terms predate
    /// `strata.terms`, string and composite terms were not canonical: only an ASCII
    /// string's equality is answered there, the rest is scanned.
    private func indexedKeys(_ condition: IndexableCondition, type: AttributeType, index: UInt32) throws -> [LocatedKey]? {
        let legacyTerms = !store.exactTerms && (type == .string || type == .composite)
        func equalKeys(_ value: Value) throws -> [LocatedKey]? {
            guard let stored = Self.storedValue(value, for: type), ObjectCodec.orderedBytes(stored) != nil else { return nil }
            if legacyTerms && !ObjectStore.hasSameTermInEveryStore(stored) { return nil }
            return try UniqueConstraint.equalTerms([stored], compound: false).flatMap {
                try store.records.locatedKeys(index: index, from: $0, through: $0, lowerInclusive: true, upperInclusive: true)
            }
        }
        switch condition.kind {
        case .equalTo(let value):
            return try equalKeys(value)
        case .oneOf(let values):
            var keys: [LocatedKey] = []
            for value in values {
                guard let found = try equalKeys(value) else { return nil }
                keys += found
            }
            return keys
        case .range(let lower, let upper):
            guard !legacyTerms else { return nil }
            // Terms of strings, URLs and binaries are truncated and decimals are
            // rounded to doubles: two different values may share a term, so an
            // exclusive bound could drop a match. Those ranges stay inclusive and the
            // predicate trims the edge.
            let exact = Self.hasExactTerms(type)
            let lowerInclusive = !exact || (lower?.isInclusive ?? true)
            let upperInclusive = !exact || (upper?.isInclusive ?? true)
            var low: [UInt8]?
            var high: [UInt8]?
            // -0.0 sorts just below 0.0 in term order but equals it: an inclusive lower
            // bound at zero starts at -0.0, an inclusive upper one ends at 0.0 (and the
            // exclusive ones the other way round, leaving both out).
            if let lower {
                guard let stored = Self.storedValue(lower.value, for: type),
                      let term = ObjectCodec.orderedBytes(Self.signedZero(stored, negative: lowerInclusive)) else { return nil }
                low = term
            }
            if let upper {
                guard let stored = Self.storedValue(upper.value, for: type),
                      let term = ObjectCodec.orderedBytes(Self.signedZero(stored, negative: !upperInclusive)) else { return nil }
                high = term
            }
            return try store.records.locatedKeys(index: index, from: low, through: high,
                                                 lowerInclusive: lowerInclusive, upperInclusive: upperInclusive)
        }
    }

    /// A zero double or date with the sign asked for; any other value as it is.
    static func signedZero(_ value: Value, negative: Bool) -> Value {
        let zero = negative ? -0.0 : 0.0
        switch value {
        case .double(let d) where d == 0: return .double(zero)
        case .date(let d) where d.timeIntervalSinceReferenceDate == 0: return .date(Date(timeIntervalSinceReferenceDate: zero))
        default: return value
        }
    }

    /// The index term of a predicate constant as the attribute would store it (tests
    /// and callers that want the bytes).
    static func term(_ value: Value, for type: AttributeType) -> [UInt8]? {
        storedValue(value, for: type).flatMap(ObjectCodec.orderedBytes)
    }

    /// A predicate constant as the attribute would store it: an integer constant
    /// against a Double attribute is the same number as a double, and so on. Nil when
    /// the constant cannot be stored in the attribute exactly.
    static func storedValue(_ value: Value, for type: AttributeType) -> Value? {
        switch (value, type) {
        case (.int(let i), .float), (.int(let i), .double):
            // Beyond 2^53 a Double cannot hold every integer: scan instead.
            guard let d = Double(exactly: i) else { return nil }
            return .double(d)
        case (.double(let d), .int16), (.double(let d), .int32), (.double(let d), .int64):
            guard let i = Int64(exactly: d) else { return nil }
            return .int(i)
        case (.int(let i), .decimal):
            return .decimal(Decimal(i))
        case (.double(let d), .decimal):
            return .double(d) // decimal terms are their double value
        default:
            guard value.conforms(to: type) else { return nil }
            return value
        }
    }

    private static func hasExactTerms(_ type: AttributeType) -> Bool {
        switch type {
        case .string, .url, .binary, .decimal, .composite: false
        default: true
        }
    }
}
