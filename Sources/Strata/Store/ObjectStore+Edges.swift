import StrataLog

/// One edge as a side's listing sees it: read from index entries, not from the record.
struct EdgeEntry: Sendable, Equatable {
    /// The object at the other end.
    var destination: RecordKey
    /// Its position on this side (0 on a side without order).
    var position: UInt64
    /// The edge record's key.
    var key: RecordKey
}

extension ObjectStore {
    /// Index entries read per page when walking a side's edges.
    static let edgePageSize = 4096

    /// Walks the committed edges of `object` on `side` in that side's order (positions
    /// for an ordered side, else destination keys), a page at a time, reading index
    /// entries only. `body` returns false to stop.
    func forEachEdgePage(of object: RecordKey, side: EdgeSide, _ body: ([EdgeEntry]) throws -> Bool) throws {
        try Self.forEachEdgePage(in: records, of: object, side: side, body)
    }

    /// The same walk over any record store (a migration preview reads a store it has
    /// not opened as an `ObjectStore`).
    static func forEachEdgePage(in records: any RecordStore, of object: RecordKey, side: EdgeSide, _ body: ([EdgeEntry]) throws -> Bool) throws {
        let (index, offset) = side.listing
        let prefix = ObjectCodec.bigEndian(object.rawValue)
        var after: TermEntry?
        while true {
            let page = try records.termEntries(index: index, prefix: prefix, after: after, limit: Self.edgePageSize)
            guard let last = page.last else { return }
            let entries = page.compactMap { entry -> EdgeEntry? in
                guard let destination = EdgeCodec.key(in: entry.value, at: offset) else { return nil }
                let position = side.isOrdered ? EdgeCodec.key(in: entry.value, at: 8)?.rawValue ?? 0 : 0
                return EdgeEntry(destination: destination, position: position, key: entry.key)
            }
            guard try body(entries) else { return }
            if page.count < Self.edgePageSize { return }
            after = last
        }
    }

    /// The committed edges of `object` on `side`, in order.
    func storedEdges(of object: RecordKey, side: EdgeSide) throws -> [EdgeEntry] {
        var result: [EdgeEntry] = []
        try forEachEdgePage(of: object, side: side) { page in
            result += page
            return true
        }
        return result
    }

    /// How many committed edges `object` has on `side`, counted from index entries.
    func storedEdgeCount(of object: RecordKey, side: EdgeSide) throws -> Int {
        var count = 0
        try forEachEdgePage(of: object, side: side) { page in
            count += page.count
            return true
        }
        return count
    }

    /// The keys of the committed edges between two objects (one, unless damaged).
    func edgeKeys(_ pair: EdgePair, relation: EdgeRelation) throws -> [RecordKey] {
        try records.keys(for: IndexTerm(index: relation.pairIndex,
                                    value: ObjectCodec.bigEndian(pair.owner.rawValue) + ObjectCodec.bigEndian(pair.member.rawValue)))
    }

    /// The edge relations and sides an object of `entity` takes part in (as owner or
    /// member), for deleting its edges with it.
    func edgeSides(ofEntity entity: EntityDescription) -> [EdgeSide] {
        schema.edgeRelations.flatMap { relation -> [EdgeSide] in
            var sides: [EdgeSide] = []
            if entity.isKind(of: relation.ownerEntity) { sides.append(EdgeSide(relation: relation, isOwner: true)) }
            if entity.isKind(of: relation.memberEntity) { sides.append(EdgeSide(relation: relation, isOwner: false)) }
            return sides
        }
    }

    /// The relation `Entity.relationship` whose edge records use `key`, nil when `key`
    /// is not an edge record's (an object's, or outside the model). `strata verify`
    /// uses it to tell edges from stray records.
    package func edgeRelationName(forKey key: RecordKey) -> String? {
        schema.edgeByTag[StoreSchema.tag(of: key)]?.name
    }
}
