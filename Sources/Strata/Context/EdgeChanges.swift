import StrataLog

/// A context's unsaved changes to one edge relation: memberships added and removed,
/// and explicit orders set by `setObjects` on an ordered side. Only what changed is
/// held — adding the 100,001st member holds one pair, not the list — and a save
/// turns each change into one edge written or tombstoned (docs/FORMAT.md §11).
struct EdgeChanges {
    /// Pairs added, in the order they were added (appends keep it).
    private(set) var added: [EdgePair] = []
    private(set) var addedSet = Set<EdgePair>()
    private(set) var removed = Set<EdgePair>()
    /// Explicit orders of owners' members (ordered primary side), by owner.
    var ownerOrders: [RecordKey: [RecordKey]] = [:]
    /// Explicit orders of members' owners (ordered inverse side), by member.
    var memberOrders: [RecordKey: [RecordKey]] = [:]

    var isEmpty: Bool { added.isEmpty && removed.isEmpty && ownerOrders.isEmpty && memberOrders.isEmpty }

    /// Adds a pair at the end of both sides. A pair removed earlier in this context
    /// stays removed too: the save tombstones its old edge and writes a new one, so it
    /// moves to the end, as remove-then-add does in Core Data.
    mutating func add(_ pair: EdgePair) {
        guard addedSet.insert(pair).inserted else { return }
        added.append(pair)
        // An explicit order already holds every member: only a newcomer is appended.
        if ownerOrders[pair.owner]?.contains(pair.member) == false { ownerOrders[pair.owner]?.append(pair.member) }
        if memberOrders[pair.member]?.contains(pair.owner) == false { memberOrders[pair.member]?.append(pair.owner) }
    }

    /// Removes a pair: an unsaved add is undone, a committed edge is tombstoned at save.
    mutating func remove(_ pair: EdgePair) {
        if addedSet.remove(pair) != nil {
            added.removeAll { $0 == pair }
        }
        removed.insert(pair)
        ownerOrders[pair.owner]?.removeAll { $0 == pair.member }
        memberOrders[pair.member]?.removeAll { $0 == pair.owner }
    }

    /// Forgets every change that involves `key` (a refresh without merging).
    mutating func forget(_ key: RecordKey) {
        added.removeAll { $0.owner == key || $0.member == key }
        addedSet = Set(added)
        removed = removed.filter { $0.owner != key && $0.member != key }
        ownerOrders[key] = nil
        memberOrders[key] = nil
        for owner in Array(ownerOrders.keys) { ownerOrders[owner]?.removeAll { $0 == key } }
        for member in Array(memberOrders.keys) { memberOrders[member]?.removeAll { $0 == key } }
    }

    /// Whether the pair was removed in this context (and is still committed).
    func isRemoved(_ pair: EdgePair) -> Bool { removed.contains(pair) }
    func isAdded(_ pair: EdgePair) -> Bool { addedSet.contains(pair) }

    /// Every object at either end of a change.
    var touchedKeys: Set<RecordKey> {
        var keys = Set<RecordKey>()
        for pair in added { keys.insert(pair.owner); keys.insert(pair.member) }
        for pair in removed { keys.insert(pair.owner); keys.insert(pair.member) }
        for (owner, members) in ownerOrders { keys.insert(owner); keys.formUnion(members) }
        for (member, owners) in memberOrders { keys.insert(member); keys.formUnion(owners) }
        return keys
    }
}
