import StrataLog

/// A fetch request compiled for one entity's records (one per tag of a fetch with
/// sub-entities, whose layouts differ): the predicate and the sort keys resolved to
/// fields once, and the slots the fields of each candidate record are decoded into.
/// A class, so the slots are reused record after record without a copy.
///
/// The slots are only ever touched by the one fetch running on the context's thread,
/// so their exclusivity is not checked at run time: the dynamic checks would run for
/// every field of every record a scan judges.
final class CompiledFetch {
    /// The fields the predicate reads, decoded for every candidate.
    @exclusivity(unchecked) var slots: RecordFieldSlots
    /// The fields the sort keys read, decoded for matches only (a name to sort by is
    /// a string made per record; most candidates of a query do not match).
    @exclusivity(unchecked) var sortReader: RecordFieldSlots
    /// Nil without a predicate (every record matches).
    let predicate: CompiledPredicate?
    /// The predicate as plain integer tests, when it is only those.
    let integerTests: [IntegerTest]?
    /// The same tests judged on the encoded record, when the predicate is only those.
    let rawJudge: RawIntegerJudge?
    /// `rawJudge?.readsEverySlot`, kept apart so judging never copies the judge.
    let rawReadsEverySlot: Bool
    /// Each sort key's slot.
    let sortSlots: [Int]
    /// Each sort key's path past its slot's to-one relationship; nil for an attribute
    /// of the entity.
    let sortPaths: [ToOneReader.Path?]
    /// The slot in `slots` of the first sort key's field; nil without sort keys.
    let firstSortSlot: Int?
    /// The slot in `slots` of the second sort key's field, when the first two sort
    /// keys are integer attributes (read with the predicate, like the first, so a
    /// top-k turns away rows that tie on the first without decoding the rest); nil
    /// otherwise.
    let secondSortSlot: Int?
    /// Whether a match may be kept with its first sort value only and the others
    /// decoded later from its record (`FetchRowCollector.completesLater`): the first
    /// is read with the predicate, and the others always decode to attribute values.
    let sortsLater: Bool
    /// The entity's current layout: a record of an older one is judged decoded.
    let layoutID: UInt32
    /// The layout of version-1 records (which name none).
    let firstLayoutID: UInt32

    /// Whether the predicate reads key paths through to-one relationships: those read
    /// the context's registry (``ToOneReader``), so the fetch is judged on the
    /// context's thread alone.
    let readsRelationships: Bool

    /// Compiles `request` for `shape`'s records; the reader of `relationships` reads the
    /// predicate's key paths through to-one relationships (without it, they are refused).
    ///
    /// - Throws: ``CompiledPredicate/Refusal`` when the predicate or a sort key needs a
    ///   managed object (to-many relationships, transient attributes, `@count`).
    init(_ request: FetchRequest, shape: StoreSchema.EntityShape, relationships: ObjectContext? = nil) throws {
        let pathsBefore = relationships?.madeToOneReader?.compiledPaths ?? 0
        var fields: [Int] = []
        let predicate = try request.predicate.map {
            try CompiledPredicate.compile($0, entity: shape.entity, layout: shape.layout, relationships: relationships, fields: &fields)
        }
        var sortFields: [Int] = []
        var sortPaths: [ToOneReader.Path?] = []
        var firstSortIsScalar = false, firstSortIsInteger = false, secondSortIsInteger = false, restArePlain = true
        for key in request.sortKeys {
            guard let attribute = shape.entity.attributesByName[key.keyPath] else {
                // `department.name`: the to-one's field, then the destination's value.
                let components = key.keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard let relationships, let first = components.first, let relationship = shape.entity.relationshipsByName[first],
                      !relationship.isToMany, let number = shape.layout.fieldNumbers[first] else {
                    throw CompiledPredicate.Refusal(reason: "the sort key '\(key.keyPath)' is not an attribute")
                }
                sortPaths.append(try relationships.toOneReader.compile(components, entity: shape.entity, path: key.keyPath, endsAtAttribute: true))
                if sortFields.isEmpty { firstSortIsScalar = false } else { restArePlain = false }
                sortFields.append(number)
                continue
            }
            guard !attribute.isTransient, let number = shape.layout.fieldNumbers[key.keyPath] else {
                throw CompiledPredicate.Refusal(reason: "the sort key '\(key.keyPath)' is transient")
            }
            if sortFields.isEmpty {
                switch attribute.type {
                case .bool, .int16, .int32, .int64, .float, .double, .date: firstSortIsScalar = true
                default: firstSortIsScalar = false
                }
                firstSortIsInteger = [.int16, .int32, .int64].contains(attribute.type)
            } else {
                if sortFields.count == 1 { secondSortIsInteger = [.int16, .int32, .int64].contains(attribute.type) }
                switch attribute.type {
                case .bool, .int16, .int32, .int64, .float, .double, .decimal, .string, .date, .uuid, .url: break
                default: restArePlain = false
                }
            }
            sortFields.append(number)
            sortPaths.append(nil)
        }
        self.readsRelationships = (relationships?.madeToOneReader?.compiledPaths ?? 0) > pathsBefore
        self.sortPaths = sortPaths
        // A scalar first sort key's field is read with the predicate's (decoding it
        // allocates nothing), so that a full top-k can turn a match away on it before
        // the other sort fields are decoded. A string is not: judging would then make
        // one for every candidate, matching or not.
        // Two integer sort keys are both read so: a walk of the first one's index meets
        // runs of rows that tie on it.
        let early = firstSortIsScalar ? Array(sortFields.prefix(firstSortIsInteger && secondSortIsInteger ? 2 : 1)) : []
        let slots = RecordFieldSlots(fields: fields + early, rules: shape.layout.rules)
        let sortReader = RecordFieldSlots(fields: sortFields, rules: shape.layout.rules)
        self.slots = slots
        self.sortReader = sortReader
        self.predicate = predicate?.bound(to: slots)
        self.integerTests = self.predicate?.integerTests
        let firstSortSlot = early.first.map(slots.slot(of:))
        self.rawJudge = integerTests.flatMap { RawIntegerJudge(tests: $0, slots: slots, integerSlot: firstSortIsInteger ? firstSortSlot : nil) }
        // The judge hands back the first sort value only: with a second read early,
        // a record that passes has its slots loaded the general way.
        let secondSortSlot = early.count > 1 ? slots.slot(of: early[1]) : nil
        self.rawReadsEverySlot = (rawJudge?.readsEverySlot ?? false) && secondSortSlot == nil
        self.secondSortSlot = secondSortSlot
        self.sortSlots = sortFields.map(sortReader.slot(of:))
        self.firstSortSlot = firstSortSlot
        self.sortsLater = firstSortSlot != nil && sortFields.count >= 2 && restArePlain
        self.layoutID = shape.layout.layoutID
        self.firstLayoutID = shape.layout.firstLayoutID
    }

    /// Whether `view` matches the predicate, its fields read into `slots`; nil when the
    /// record must be judged as an object (an older layout, an external binary read).
    ///
    /// - Throws: `.corrupt` for a value that does not decode; what the interpreter
    ///   throws for the same values.
    func judge(_ view: RecordView) throws -> Bool? {
        // Through the optional, not bound out of it: a bound copy of the judge
        // retained and released its arrays once per record.
        var first: Int64?
        if let passed = rawJudge?.judge(view.value, layoutID: layoutID, firstLayoutID: firstLayoutID, read: firstSortSlot ?? -1, into: &first) {
            guard passed else { return false }
            guard rawReadsEverySlot else {
                // Another scalar first sort key: a match has its slots loaded the
                // general way (matches are few; judging is not).
                return try slots.load(view, layoutID: layoutID, firstLayoutID: firstLayoutID) ? true : nil
            }
            // An integer first sort key was read with the tests: into its slot,
            // as loading it would have put it.
            if let firstSortSlot { slots.values[firstSortSlot] = first.map { .value(.int($0)) } ?? .null }
            return true
        }
        return try judgeDecoded(view)
    }

    /// ``judge(_:)`` with the predicate's fields decoded into `slots` first: the
    /// general path, which every record takes that `rawJudge` leaves undecided.
    func judgeDecoded(_ view: RecordView) throws -> Bool? {
        guard try slots.load(view, layoutID: layoutID, firstLayoutID: firstLayoutID) else { return nil }
        guard let predicate else { return true }
        if let integerTests {
            let fast: Bool? = slots.values.withUnsafeBufferPointer { values in
                for test in integerTests {
                    switch values[test.slot] {
                    case .value(.int(let v)): if !test.passes(v) { return false }
                    case .null: if !test.nullResult { return false }
                    // Anything else (damage, a reference): the general path decides,
                    // from the first test, as the AND would have.
                    default: return nil
                    }
                }
                return true
            }
            if let fast { return fast }
        }
        return try predicate.evaluate(slots.values)
    }

    /// The first sort key's value of the record `judge` loaded last; nil without sort
    /// keys or when it is not an attribute value.
    var firstSortValue: Value? {
        firstSortSlot.flatMap { Self.attributeValue(slots.values[$0]) }
    }

    /// The second sort key's value of the record `judge` loaded last, when it is read
    /// with the predicate (`secondSortSlot`); nil otherwise.
    var secondSortValue: Value? {
        secondSortSlot.flatMap { Self.attributeValue(slots.values[$0]) }
    }

    /// A decoded field as a value to sort by: null or an attribute's value; nil for
    /// anything else (judge the object instead).
    @inline(__always)
    private static func attributeValue(_ field: FieldValue) -> Value? {
        switch field {
        case .null: return .null
        case .value(let value): return value
        default: return nil
        }
    }

    /// Gives a row kept with its first sort value only (`sortsLater`) all of them,
    /// decoded from the record it keeps.
    ///
    /// - Throws: `.corrupt` when the record does not decode.
    func completeSortValues(_ row: inout FetchRow) throws {
        guard let record = row.record else {
            throw StrataError(.corrupt, "a match of \(row.key) was kept without its record")
        }
        let values = try record.value.withUnsafeBytes { value in
            try record.blobs.withUnsafeBufferPointer { blobs in
                try sortValues(RecordView(key: record.key, sequence: record.sequence, value: value, blobs: blobs))
            }
        }
        guard let values else {
            throw StrataError(.corrupt, "object record \(row.key) no longer decodes to the sort values it was judged by")
        }
        row.values = values
    }

    /// The sort values of `view` (whose predicate fields are loaded); nil when one is not an attribute
    /// value (judge the object instead).
    func sortValues(_ view: RecordView) throws -> [Value]? {
        guard try sortReader.load(view, layoutID: layoutID, firstLayoutID: firstLayoutID) else { return nil }
        var values: [Value] = []
        values.reserveCapacity(sortSlots.count)
        for (i, slot) in sortSlots.enumerated() {
            if let path = sortPaths[i] {
                switch sortReader.values[slot] {
                case .null:
                    values.append(.null)
                case .reference(let key):
                    guard case .single(.value(let value))? = try path.resolve(key) else { return nil }
                    values.append(value)
                default:
                    return nil
                }
                continue
            }
            guard let value = Self.attributeValue(sortReader.values[slot]) else { return nil }
            values.append(value)
        }
        return values
    }
}
