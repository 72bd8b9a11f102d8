import Synchronization

/// The engine's live counters, updated without locks from any thread.
final class StatisticsCounters: Sendable {
    let framesDecoded = Atomic<Int>(0)
    let recordsDecoded = Atomic<Int>(0)
    let segmentBytesRead = Atomic<Int>(0)
    let segmentBytesWritten = Atomic<Int>(0)
    let blobBytesRead = Atomic<Int>(0)
    let blobBytesWritten = Atomic<Int>(0)
    let blobsRead = Atomic<Int>(0)
    let blobsWritten = Atomic<Int>(0)
    let commits = Atomic<Int>(0)
    let syncs = Atomic<Int>(0)
    let compactions = Atomic<Int>(0)
    let compactionBytesReclaimed = Atomic<Int>(0)

    func snapshot() -> LogStatistics {
        LogStatistics(
            framesDecoded: framesDecoded.load(ordering: .relaxed),
            recordsDecoded: recordsDecoded.load(ordering: .relaxed),
            segmentBytesRead: segmentBytesRead.load(ordering: .relaxed),
            segmentBytesWritten: segmentBytesWritten.load(ordering: .relaxed),
            blobBytesRead: blobBytesRead.load(ordering: .relaxed),
            blobBytesWritten: blobBytesWritten.load(ordering: .relaxed),
            blobsRead: blobsRead.load(ordering: .relaxed),
            blobsWritten: blobsWritten.load(ordering: .relaxed),
            commits: commits.load(ordering: .relaxed),
            syncs: syncs.load(ordering: .relaxed),
            compactions: compactions.load(ordering: .relaxed),
            compactionBytesReclaimed: compactionBytesReclaimed.load(ordering: .relaxed))
    }

    func reset() {
        framesDecoded.store(0, ordering: .relaxed)
        recordsDecoded.store(0, ordering: .relaxed)
        segmentBytesRead.store(0, ordering: .relaxed)
        segmentBytesWritten.store(0, ordering: .relaxed)
        blobBytesRead.store(0, ordering: .relaxed)
        blobBytesWritten.store(0, ordering: .relaxed)
        blobsRead.store(0, ordering: .relaxed)
        blobsWritten.store(0, ordering: .relaxed)
        commits.store(0, ordering: .relaxed)
        syncs.store(0, ordering: .relaxed)
        compactions.store(0, ordering: .relaxed)
        compactionBytesReclaimed.store(0, ordering: .relaxed)
    }
}

extension Atomic where Value == Int {
    func add(_ amount: Int) { _ = wrappingAdd(amount, ordering: .relaxed) }
}
