import StrataLog

extension ObjectContext {
    /// What a save writes for edges: new or re-positioned edges, tombstones of removed
    /// ones and of deleted objects' ones, and the objects at their ends.
    struct EdgeWritePlan {
        var puts: [(key: RecordKey, edge: EdgeCodec.Edge, relation: EdgeRelation)] = []
        var tombstones: [RecordKey] = []
        /// Edge tags under which keys or positions were allocated (their counters are written).
        var allocatedTags = Set<UInt16>()
        /// Objects at the ends of changed edges, when asked for (change notifications).
        var touched = Set<RecordKey>()

        var isEmpty: Bool { puts.isEmpty && tombstones.isEmpty }

        /// Adds the plan's writes to a transaction.
        func apply(to batch: inout WriteBatch) {
            for key in tombstones { batch.delete(key) }
            for put in puts {
                let (value, terms) = EdgeCodec.encode(put.edge, relation: put.relation)
                batch.put(put.key, value: value, terms: terms)
            }
        }
    }

    /// Turns this context's edge changes, and the deletes of `deleted`, into edge
    /// writes: one edge per added membership, one tombstone per removed one, the
    /// edges of every deleted object, and new positions where an order was set. Only
    /// the changed memberships are read or written, never a whole member list —
    /// except where an object is deleted (its edges go with it) or an order set.
    ///
    /// - Parameter checkEnds: refuse an edge to an object that is neither saved now
    ///   nor in the store (a migration links objects of later batches, so it does not).
    func edgeWrites(deleted: Set<RecordKey>, checkEnds: Bool, collectTouched: Bool) throws -> EdgeWritePlan {
        var plan = EdgeWritePlan()
        var tombstoned = Set<RecordKey>()
        func tombstone(_ key: RecordKey) {
            if tombstoned.insert(key).inserted { plan.tombstones.append(key) }
        }
        func touch(_ pair: EdgePair) {
            guard collectTouched else { return }
            plan.touched.insert(pair.owner)
            plan.touched.insert(pair.member)
        }

        for key in deleted.sorted() {
            guard let name = schema.entityName(of: key), let entity = store.model.entity(named: name) else { continue }
            for side in store.edgeSides(ofEntity: entity) {
                try store.forEachEdgePage(of: key, side: side) { page in
                    for entry in page {
                        tombstone(entry.key)
                        if collectTouched { plan.touched.insert(entry.destination) }
                    }
                    return true
                }
            }
        }

        for tag in edgeChanges.keys.sorted() {
            guard let changes = edgeChanges[tag], !changes.isEmpty, let relation = schema.edgeByTag[tag] else { continue }
            func gone(_ pair: EdgePair) -> Bool { deleted.contains(pair.owner) || deleted.contains(pair.member) }
            for pair in changes.removed.sorted(by: { ($0.owner, $0.member) < ($1.owner, $1.member) }) where !gone(pair) {
                for key in try store.edgeKeys(pair, relation: relation) { tombstone(key) }
                touch(pair)
            }

            // What each pair must become: present, with a position per ordered side
            // when an order decided one.
            var wanted: [EdgePair: (owner: UInt64?, member: UInt64?)] = [:]
            var sequence: [EdgePair] = []
            func want(_ pair: EdgePair, owner: UInt64? = nil, member: UInt64? = nil) {
                if wanted[pair] == nil {
                    wanted[pair] = (nil, nil)
                    sequence.append(pair)
                }
                if let owner { wanted[pair]?.owner = owner }
                if let member { wanted[pair]?.member = member }
            }
            for pair in changes.added where !gone(pair) { want(pair) }
            for (owner, order) in changes.ownerOrders.sorted(by: { $0.key < $1.key }) where !deleted.contains(owner) {
                let side = EdgeSide(relation: relation, isOwner: true)
                let live = order.filter { !deleted.contains($0) }
                let positions = try orderPositions(of: owner, side: side, order: live, isRemoved: changes.isRemoved, plan: &plan)
                for member in live { want(EdgePair(owner: owner, member: member), owner: positions[member]) }
            }
            for (member, order) in changes.memberOrders.sorted(by: { $0.key < $1.key }) where !deleted.contains(member) {
                let side = EdgeSide(relation: relation, isOwner: false)
                let live = order.filter { !deleted.contains($0) }
                let positions = try orderPositions(of: member, side: side, order: live, isRemoved: changes.isRemoved, plan: &plan)
                for owner in live { want(EdgePair(owner: owner, member: member), member: positions[owner]) }
            }

            for pair in sequence {
                guard let (ownerPosition, memberPosition) = wanted[pair] else { continue }
                let existing = changes.isRemoved(pair) ? nil : try store.edgeKeys(pair, relation: relation).first { !tombstoned.contains($0) }
                if let existing {
                    // Already a member: rewritten only when an order moved it.
                    guard ownerPosition != nil || memberPosition != nil, let record = try store.records.get(existing) else { continue }
                    var edge = try EdgeCodec.decode(record)
                    let before = edge
                    if let ownerPosition { edge.ownerPosition = ownerPosition }
                    if let memberPosition { edge.memberPosition = memberPosition }
                    if edge != before {
                        plan.puts.append((existing, edge, relation))
                        touch(pair)
                    }
                    continue
                }
                if checkEnds {
                    for end in [pair.owner, pair.member] where try !(changed[end]?.isNew ?? false) && !store.records.contains(end) {
                        let id = store.objectID(for: end)?.description ?? "\(end)"
                        throw StrataError(.objectNotFound, "\(relation.name) links to \(id), which is not in the store (deleted meanwhile?); nothing was saved",
                                          context: ["keyPath": relation.relationship, "entity": relation.ownerEntity, "object": id])
                    }
                }
                let key = try store.allocateKey(tag: relation.tag)
                plan.allocatedTags.insert(relation.tag)
                let fresh = Self.appendPosition(key)
                plan.puts.append((key, EdgeCodec.Edge(owner: pair.owner, member: pair.member,
                                                      ownerPosition: ownerPosition ?? (relation.ownerOrdered ? fresh : 0),
                                                      memberPosition: memberPosition ?? (relation.memberOrdered ? fresh : 0)), relation))
                touch(pair)
            }
        }
        return plan
    }

    /// The position an edge appended under `key` takes: after every position handed
    /// out before it, since serials only grow (docs/FORMAT.md §11.2).
    static func appendPosition(_ key: RecordKey) -> UInt64 {
        (key.rawValue & ObjectID.serialMask) << EdgeCodec.positionShift
    }

    /// Positions for `order` on an ordered side. Members whose committed positions
    /// already follow the order (the longest increasing run of them) keep them; the
    /// others take positions between their neighbours, or fresh ones at the end. Only
    /// when two neighbours leave no room is the whole side renumbered.
    private func orderPositions(of object: RecordKey, side: EdgeSide, order: [RecordKey], isRemoved: (EdgePair) -> Bool,
                                plan: inout EdgeWritePlan) throws -> [RecordKey: UInt64] {
        var current: [RecordKey: UInt64] = [:]
        for entry in try store.storedEdges(of: object, side: side) where !isRemoved(side.pair(object, entry.destination)) {
            current[entry.destination] = entry.position
        }
        var seen = Set<RecordKey>()
        let order = order.filter { seen.insert($0).inserted }
        let placed = order.indices.compactMap { i in current[order[i]].map { (index: i, position: $0) } }
        let anchors = Set(Self.longestIncreasingRun(placed.map(\.position)).map { placed[$0].index })

        var result: [RecordKey: UInt64] = [:]
        var low: UInt64 = 0
        var i = 0
        while i < order.count {
            if anchors.contains(i), let position = current[order[i]] {
                low = position
                result[order[i]] = position
                i += 1
                continue
            }
            var j = i
            while j < order.count && !anchors.contains(j) { j += 1 }
            let run = order[i..<j]
            if j == order.count {
                for (member, key) in zip(run, try store.allocateKeys(tag: side.relation.tag, count: run.count)) {
                    result[member] = Self.appendPosition(key)
                }
                plan.allocatedTags.insert(side.relation.tag)
            } else {
                let high = current[order[j]] ?? low
                let room = high > low ? high - low : 0
                guard room > UInt64(run.count) else { return try renumber(order, side: side, plan: &plan) }
                let step = room / UInt64(run.count + 1)
                for (n, member) in run.enumerated() { result[member] = low + step * UInt64(n + 1) }
            }
            i = j
        }
        return result
    }

    /// Fresh positions for a whole side, in order (after everything handed out).
    private func renumber(_ order: [RecordKey], side: EdgeSide, plan: inout EdgeWritePlan) throws -> [RecordKey: UInt64] {
        plan.allocatedTags.insert(side.relation.tag)
        let keys = try store.allocateKeys(tag: side.relation.tag, count: order.count)
        return Dictionary(zip(order, keys.map(Self.appendPosition)), uniquingKeysWith: { first, _ in first })
    }

    /// Indices of a longest strictly increasing subsequence (patience sorting).
    static func longestIncreasingRun(_ values: [UInt64]) -> [Int] {
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (i, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[i] = tails[low - 1] }
            if low == tails.count { tails.append(i) } else { tails[low] = i }
        }
        var run: [Int] = []
        var k = tails.last ?? -1
        while k >= 0 {
            run.append(k)
            k = previous[k]
        }
        return run.reversed()
    }
}
