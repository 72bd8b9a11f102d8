import StrataLog

/// The edge records of one stored to-many (docs/FORMAT.md §11): an ordered to-many,
/// a many-to-many pair, or a to-many without inverse. Each membership is one small
/// record under the relation's own key tag; its index terms make both directions
/// lookups. A many-to-many pair is one relation read from both sides: keeping the
/// inverse is writing one edge, not two lists.
struct EdgeRelation: Sendable, Equatable {
    /// The key tag of the relation's edges (high 16 bits of their keys).
    var tag: UInt16
    /// The entity that declares the primary side (the owner end of every edge).
    var ownerEntity: String
    /// The primary side's relationship name.
    var relationship: String
    /// The primary side's destination (the member end of every edge).
    var memberEntity: String
    /// The member side's relationship (a to-many, or the to-one inverse of an
    /// ordered to-many), nil without inverse.
    var inverseName: String?
    /// Whether the owner's members have an order (the primary side is ordered).
    var ownerOrdered: Bool
    /// Whether a member's owners have an order (the inverse is an ordered to-many).
    var memberOrdered: Bool

    /// `Entity.relationship` of the primary side: the relation's name in the store's metadata.
    var name: String { "\(ownerEntity).\(relationship)" }

    // Index numbers: the relation's tag in the high 16 bits, as entity term indexes
    // carry their entity's; the low bits say which term. Written to disk; never renumber.
    /// owner ‖ member: membership (equality) and an owner's members in key order.
    var pairIndex: UInt32 { UInt32(tag) << 16 | 1 }
    /// member ‖ owner: a member's owners in key order (the inverse side).
    var inverseIndex: UInt32 { UInt32(tag) << 16 | 2 }
    /// owner ‖ position ‖ member: an owner's members in order (ordered primary side).
    var ownerOrderIndex: UInt32 { UInt32(tag) << 16 | 3 }
    /// member ‖ position ‖ owner: a member's owners in order (ordered inverse).
    var memberOrderIndex: UInt32 { UInt32(tag) << 16 | 4 }
}

/// One side of an edge relation, as an entity's to-many reads it.
struct EdgeSide: Sendable, Equatable {
    var relation: EdgeRelation
    /// True for the primary side (the object is the edges' owner end).
    var isOwner: Bool

    var isOrdered: Bool { isOwner ? relation.ownerOrdered : relation.memberOrdered }

    /// The index that lists this side's destinations, and where in its values the
    /// destination's key starts.
    var listing: (index: UInt32, destinationOffset: Int) {
        switch (isOwner, isOrdered) {
        case (true, false): return (relation.pairIndex, 8)
        case (false, false): return (relation.inverseIndex, 8)
        case (true, true): return (relation.ownerOrderIndex, 16)
        case (false, true): return (relation.memberOrderIndex, 16)
        }
    }

    /// The edge's (owner, member) for an object on this side and one destination.
    func pair(_ object: RecordKey, _ destination: RecordKey) -> EdgePair {
        isOwner ? EdgePair(owner: object, member: destination) : EdgePair(owner: destination, member: object)
    }
}

/// The two ends of an edge.
struct EdgePair: Hashable, Sendable {
    var owner: RecordKey
    var member: RecordKey
}
