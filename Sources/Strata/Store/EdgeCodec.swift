import StrataLog

/// Encodes edge records (docs/FORMAT.md §11):
///
///     value = version u8 (1) · owner u64 · member u64 · ownerPosition u64 · memberPosition u64   (little-endian)
///     terms = pairIndex: owner ‖ member · inverseIndex: member ‖ owner
///             · ownerOrderIndex: owner ‖ ownerPosition ‖ member   (ordered primary side only)
///             · memberOrderIndex: member ‖ memberPosition ‖ owner (ordered inverse only)   (big-endian)
///
/// A position is 0 on a side without order. Appends take the new edge's serial
/// shifted left by `positionShift`, so an append sorts after every position handed
/// out before it and leaves room to place members between two others.
enum EdgeCodec {
    static let version: UInt8 = 1
    static let valueSize = 33
    /// Room between two appended members: 2^16 positions.
    static let positionShift: UInt64 = 16

    struct Edge: Equatable, Sendable {
        var owner: RecordKey
        var member: RecordKey
        var ownerPosition: UInt64
        var memberPosition: UInt64
    }

    static func encode(_ edge: Edge, relation: EdgeRelation) -> (value: [UInt8], terms: [IndexTerm]) {
        var w = FieldWriter()
        w.u8(version)
        w.u64(edge.owner.rawValue)
        w.u64(edge.member.rawValue)
        w.u64(edge.ownerPosition)
        w.u64(edge.memberPosition)
        let owner = ObjectCodec.bigEndian(edge.owner.rawValue), member = ObjectCodec.bigEndian(edge.member.rawValue)
        var terms = [IndexTerm(index: relation.pairIndex, value: owner + member),
                     IndexTerm(index: relation.inverseIndex, value: member + owner)]
        if relation.ownerOrdered {
            terms.append(IndexTerm(index: relation.ownerOrderIndex, value: owner + ObjectCodec.bigEndian(edge.ownerPosition) + member))
        }
        if relation.memberOrdered {
            terms.append(IndexTerm(index: relation.memberOrderIndex, value: member + ObjectCodec.bigEndian(edge.memberPosition) + owner))
        }
        return (w.bytes, terms)
    }

    static func decode(_ record: Record) throws -> Edge {
        var r = FieldReader(bytes: record.value)
        let version = try r.u8()
        guard version == Self.version, record.value.count == valueSize else {
            throw StrataError(.corrupt, "edge record \(record.key) has codec version \(version) and \(record.value.count) bytes; this release reads version \(Self.version) of \(valueSize)")
        }
        return Edge(owner: RecordKey(try r.u64()), member: RecordKey(try r.u64()), ownerPosition: try r.u64(), memberPosition: try r.u64())
    }

    /// A big-endian u64 at `offset` of a term value.
    static func key(in bytes: [UInt8], at offset: Int) -> RecordKey? {
        guard offset + 8 <= bytes.count else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + 8] { value = value << 8 | UInt64(byte) }
        return RecordKey(value)
    }
}
