import StrataLog

/// A fetch sorted by an indexed attribute, with a limit, walks that attribute's index
/// in sort order and stops once its top rows are settled, as SQLite does for
/// `ORDER BY indexed LIMIT n`: the twenty highest salaries of a million employees
/// read about twenty records, not a million.
///
/// The walk hands candidates to the same top-k a scan fills (`FetchRowCollector`),
/// each term's candidates whole: the collector still orders by every sort key and
/// then by key, so ties on the first key, the other sort keys and the rest of the
/// predicate are decided exactly as a scan decides them. Once it is full, a term past
/// the current one cannot enter (its first sort value comes after every kept row's),
/// and the walk ends there.
struct IndexOrderWalk {
    /// The term index of the first sort key's attribute.
    let index: UInt32
    /// Whether the walk runs from the greatest term down.
    let descending: Bool
    /// The attribute walked, for `explain`.
    let attribute: String
    /// Whether objects without a value may still be wanted when the index runs out:
    /// an optional attribute's nulls have no term and sort last when descending. The
    /// fetch then judges every object instead.
    let nullsMayFollow: Bool

    /// The largest top-k walked in index order: past it, reading the entity in key
    /// order (a scan) costs less than reading its records one by one in value order.
    static let maximumRows = 4_096
    /// How many terms each index source lends to the first page: twice the rows the
    /// fetch wants, within these bounds; each later page asks twice as many, up to
    /// `maximumPage`. Every term a page lists is located (its key's current version
    /// found), wanted or not: a top 20 of a department of 100 read 192 terms with a
    /// first page of 64, and reads 120 with one of 40.
    static let smallestFirstPage = 16
    static let largestFirstPage = 64
    static let maximumPage = 4_096

    /// The first page's size for a fetch that wants `rows` rows.
    static func firstPage(wanting rows: Int) -> Int {
        min(largestFirstPage, max(smallestFirstPage, 2 * rows))
    }
}

extension ObjectContext {
    /// The walk that serves `request` in index order, or nil when it must be judged
    /// another way: it needs sort keys whose first is an indexed integer or string
    /// attribute of one entity (strings compared as they are, in a store with exact
    /// terms, so that term order is the sort order), a limit of at most
    /// `IndexOrderWalk.maximumRows` rows with its offset, and no unsaved change of the
    /// entity mixed in. Ascending, the attribute must be required: an optional one's
    /// nulls sort first and no term lists them.
    func indexOrderWalk(_ request: FetchRequest, tags: [UInt16]) -> IndexOrderWalk? {
        guard !interpretsFetches, tags.count == 1, let first = request.sortKeys.first, first.options.isEmpty,
              let limit = request.fetchLimit, limit >= 0, max(0, request.fetchOffset) + limit <= IndexOrderWalk.maximumRows,
              let name = schema.entityByTag[tags[0]], let shape = schema.shapes[name],
              let number = shape.layout.fieldNumbers[first.keyPath], let index = shape.layout.fields[number].termIndex,
              case .attribute(let type, let external) = shape.layout.fields[number].kind, !external,
              let attribute = shape.entity.attributesByName[first.keyPath], !attribute.isTransient else { return nil }
        switch type {
        case .int16, .int32, .int64: break
        case .string where store.exactTerms: break
        default: return nil
        }
        if attribute.isOptional && first.ascending { return nil }
        if request.includesPendingChanges && changed.values.contains(where: { $0.layout.tag == tags[0] }) { return nil }
        return IndexOrderWalk(index: index, descending: !first.ascending, attribute: first.keyPath, nullsMayFollow: attribute.isOptional)
    }

    /// A key's place among the candidates: key order, as a scan numbers them, so ties
    /// on every sort key keep insertion order whichever way the index is walked.
    static func keyOrderPosition(_ key: RecordKey) -> Int {
        Int(bitPattern: UInt(key.rawValue ^ (1 << 63)))
    }

    /// Judges the entity's candidates in `walk`'s order until `needed` rows are kept
    /// and the term being read is done. Returns false, having judged nothing that
    /// counts, when the walk cannot settle the answer and the caller must judge the
    /// entity another way: the store type cannot walk an index in order, a commit
    /// landed between two pages (a key could be met twice), or the index ran out short
    /// of `needed` while nulls may follow.
    ///
    /// Objects the context holds loaded are judged as objects first (with the values
    /// it last read, wherever the index puts their stored ones) and passed over by
    /// the walk. Their rows may sort anywhere, so the walk does not stop while one of
    /// their first sort values lies at or past the term it reads (a null: never).
    func judgeInIndexOrder(_ walk: IndexOrderWalk, tag: UInt16, needed: Int, collector: FetchRowCollector,
                           judgeObject: (RecordKey, Int) throws -> Void, judgeRecord: (RecordView, Int) throws -> Void) throws -> Bool {
        var held: Set<RecordKey> = []
        // The held objects' first sort values as terms, in the walk's order (nulls,
        // which no term passes, last); `passed` counts those before the current term.
        var heldTerms: [[UInt8]?] = []
        var passed = 0
        // Whether term `a` comes before term `b` in the walk's order.
        func before(_ a: [UInt8], _ b: [UInt8]) -> Bool {
            walk.descending ? b.lexicographicallyPrecedes(a) : a.lexicographicallyPrecedes(b)
        }
        if !registry.isEmpty {
            for entry in registry.values {
                guard let object = entry.object, object.layout.tag == tag, Self.isJudgedLoaded(object) else { continue }
                held.insert(object.recordKey)
                heldTerms.append(ObjectCodec.orderedBytes(try object.value(forKey: walk.attribute)))
            }
            for key in held.sorted() { try judgeObject(key, Self.keyOrderPosition(key)) }
            heldTerms.sort { a, b in
                guard let a else { return false }
                guard let b else { return true }
                return before(a, b)
            }
        }
        var after: TermEntry?
        var limit = IndexOrderWalk.firstPage(wanting: needed)
        var sequence: UInt64?
        // The term whose candidates are being judged: the walk stops at the next one
        // once the collector is full.
        var term: [UInt8]?
        while true {
            guard let page = try store.records.orderedIndexPage(index: walk.index, descending: walk.descending, after: after, limit: limit) else {
                return false
            }
            if let sequence, sequence != page.sequence { return false }
            sequence = page.sequence
            var settled = false
            var located: [LocatedKey] = []
            var valueIndices: [Int] = []
            located.reserveCapacity(page.entries.count)
            valueIndices.reserveCapacity(page.entries.count)
            for entry in page.entries where StoreSchema.tag(of: entry.located.key) == tag && !held.contains(entry.located.key) {
                located.append(entry.located)
                valueIndices.append(entry.valueIndex)
            }
            // The page's value being judged: its bytes are compared with the term's
            // only where the page moves to its next value.
            var current = -1
            try store.records.visitRecords(located: located) { i, view in
                if valueIndices[i] != current {
                    current = valueIndices[i]
                    let value = page.values[current]
                    if value != term {
                        while passed < heldTerms.count, let heldTerm = heldTerms[passed], before(heldTerm, value) { passed += 1 }
                        if collector.count >= needed && passed == heldTerms.count {
                            settled = true
                            return false
                        }
                        term = value
                    }
                }
                try judgeRecord(view, Self.keyOrderPosition(view.key))
                return true
            }
            if settled { return true }
            guard let next = page.next else {
                // Only nulls are left unread: wanted unless the rows kept (the walk's
                // and the held objects') are enough and none of them is null.
                return !walk.nullsMayFollow || (collector.count >= needed && !heldTerms.contains { $0 == nil })
            }
            after = next
            limit = min(IndexOrderWalk.maximumPage, limit * 2)
        }
    }
}
