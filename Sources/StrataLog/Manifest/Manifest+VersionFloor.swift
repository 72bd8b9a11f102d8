extension Manifest {
    /// The metadata key of the version floor (FORMAT.md §6.3): the oldest sequence the
    /// store can still be read as of. Every version newer than it is kept, and for each
    /// key the newest version at or below it, so that ``LogStore/snapshot(asOf:)``
    /// finds, for any sequence from the floor on, each key's version as it stood then.
    /// Reserved by the engine, like the retired list.
    static let versionFloorKey = "strata.log.versionFloor"

    /// The keys the engine keeps in the metadata map for itself: ``LogStore/metadata``
    /// does not show them and ``LogStore/setMetadata(_:)`` keeps them.
    static let engineKeys: Set<String> = [retiredKey, versionFloorKey]

    /// The caller's share of the metadata map.
    var callerMetadata: [String: [UInt8]] { metadata.filter { !Self.engineKeys.contains($0.key) } }

    /// The version floor of a store whose last sequence is `lastSequence`. A manifest
    /// older than format 5 has none: compaction may have dropped any superseded
    /// version, so only the last sequence can be read as of. Absent from a format-5
    /// manifest, it is 0: nothing was ever dropped. A malformed value refuses every
    /// past sequence rather than risk answering from a version that is gone.
    func versionFloor(lastSequence: UInt64) -> UInt64 {
        guard version >= 5 else { return lastSequence }
        guard let bytes = metadata[Self.versionFloorKey] else { return 0 }
        var r = ByteReader(bytes)
        guard let floor = try? r.u64(), r.isAtEnd else { return .max }
        return floor
    }

    /// Raises the floor to `sequence` (never lowers it).
    mutating func raiseVersionFloor(to sequence: UInt64, lastSequence: UInt64) {
        let floor = max(versionFloor(lastSequence: lastSequence), sequence)
        var w = ByteWriter(capacity: 8)
        w.u64(floor)
        metadata[Self.versionFloorKey] = w.bytes
    }

    /// The floor of a store upgraded from `version` to format 5: its last sequence,
    /// as older releases' compactions kept no superseded version.
    mutating func startVersionFloor(upgradingFrom version: UInt32, lastSequence: UInt64) {
        guard version < 5 else { return }
        raiseVersionFloor(to: lastSequence, lastSequence: lastSequence)
    }
}
