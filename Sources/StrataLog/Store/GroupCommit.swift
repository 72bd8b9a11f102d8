import Dispatch

/// Where a commit's bytes end in the log: a segment and the offset past its commit
/// frame. Segment ids only grow, so points order the whole log.
struct LogPoint: Comparable, Sendable {
    var segment: UInt32
    var end: Int64

    static func < (a: LogPoint, b: LogPoint) -> Bool {
        (a.segment, a.end) < (b.segment, b.end)
    }
}

/// A transaction appended and visible, whose durability may still be on its way.
///
/// ``LogStore/commitPending(_:)`` returns one; ``LogStore/waitUntilDurable(_:)`` or
/// ``LogStore/durable(_:)`` return once an fsync covers it. The object layer takes its
/// save's checks and append under one lock and waits outside it, so that saves that
/// arrive while an fsync runs share the next one.
package struct PendingCommit: Sendable {
    /// The transaction's sequence number.
    package let sequence: UInt64
    /// Where its bytes end; nil when it was durable when made (no fsync is asked for).
    let point: LogPoint?

    /// A commit that is already as durable as it will be.
    package init(durableSequence sequence: UInt64) {
        self.sequence = sequence
        self.point = nil
    }

    init(sequence: UInt64, point: LogPoint?) {
        self.sequence = sequence
        self.point = point
    }
}

/// Group commit: committers append under the writer lock and then wait here, outside
/// it, until an fsync covers their bytes. One fsync at a time runs; it covers
/// everything appended when it started, so commits that arrive while it runs are made
/// durable together by the next one. A caller returns only when its own commit is
/// durable; what survives a crash is still a prefix of the log.
///
/// The thread that finds no fsync running leads: a blocking committer syncs on its own
/// thread (one committer alone pays no hand-over), an async one wakes the syncer, a
/// thread of the store's (``SyncerThread``). A leader whose own commit is durable
/// hands what is left to the syncer rather than syncing for others forever.
final class GroupCommit: Sendable {
    fileprivate struct State {
        /// The active segment's handle: a roll swaps it (the sealed one stays open for readers).
        var file: (any StorageFile)?
        /// Everything up to here is written (a wait may name the next segment's header
        /// while a roll is under way).
        var appended = LogPoint(segment: 0, end: 0)
        /// Everything up to here is on disk.
        var durable = LogPoint(segment: 0, end: 0)
        var syncing = false
        /// Set by a failed fsync: every later waiter gets it (the store is read-only).
        var failure: StrataError?
        var blocked: [(LogPoint, Waiter)] = []
        var suspended: [(LogPoint, CheckedContinuation<Void, any Error>)] = []
        /// Waiters for no fsync to be running (a roll or close about to close a file).
        var idle: [DispatchSemaphore] = []
    }

    /// A blocked committer: its semaphore and, once woken, what it learned.
    fileprivate final class Waiter: @unchecked Sendable {
        // @unchecked: `error` is written before `signal` and read after `wait`.
        let semaphore = DispatchSemaphore(value: 0)
        var error: StrataError?
    }

    private let state = Locked(State())
    private let syncer = SyncerThread()
    /// Where the syncer's work goes once the store closed and its thread ended: waiters
    /// left then learn that their commits were not made durable.
    private let afterClose = DispatchQueue(label: "strata.commit.after-close")
    /// Counts an fsync; reports a failure (the store turns read-only).
    private let onSync: @Sendable () -> Void
    private let onFailure: @Sendable (any Error) -> StrataError

    /// `committing` false (a read-only store, a snapshot): nothing will be committed,
    /// and no syncer thread is started for it; work handed over anyway runs on the
    /// after-close queue.
    init(committing: Bool = true, onSync: @escaping @Sendable () -> Void, onFailure: @escaping @Sendable (any Error) -> StrataError) {
        self.onSync = onSync
        self.onFailure = onFailure
        if committing {
            syncer.start(name: "strata.commit") { [weak self] in try? self?.lead(until: nil) }
        } else {
            syncer.stop()
        }
    }

    deinit {
        syncer.stop()
    }

    /// Whether this store has a syncer thread (one that commits does).
    var hasSyncerThread: Bool { syncer.isStarted }

    /// The active segment at open or after a roll: everything before `durable` is on
    /// disk. Bytes written past it are not yet; the waits that ask for them say where
    /// they end.
    func reset(file: (any StorageFile)?, durable: LogPoint) {
        let woken = state.withLock { s -> [Wake] in
            s.file = file
            s.appended = max(s.appended, durable)
            s.durable = max(s.durable, durable)
            return s.takeDurable()
        }
        woken.forEach { $0.resume() }
    }

    /// The store failed elsewhere (an fsync made under the writer lock, a write it
    /// could not take back): no later fsync may count for what was appended before —
    /// a retried fsync can succeed after the kernel dropped the dirty pages — so every
    /// waiter, and every later one, gets the failure.
    func fail(_ failure: StrataError) {
        let woken = state.withLock { s -> [Wake] in
            if s.failure == nil { s.failure = failure }
            return s.takeAll(failing: s.failure ?? failure)
        }
        woken.forEach { $0.resume() }
    }

    /// Bytes up to `point` are written to the active segment: the next fsync covers
    /// them, and so the commits that end there before their callers wait.
    func appended(_ point: LogPoint) {
        state.withLock { $0.appended = max($0.appended, point) }
    }

    /// An fsync made under the writer lock covered everything up to `point`.
    func synced(through point: LogPoint) {
        let woken = state.withLock { s -> [Wake] in
            s.durable = max(s.durable, point)
            return s.takeDurable()
        }
        woken.forEach { $0.resume() }
    }

    /// Blocks until `point` is durable, leading an fsync when none runs. The bytes
    /// before `point` are written already (an fsync from now on covers them), whether
    /// or not a commit announced them (``appended(_:)``): a backup or a history read
    /// asks for the end of what it sees. A point past the current file's segment is
    /// the header of the next one while a roll is under way, synced when created, with
    /// every commit before it synced by the seal.
    ///
    /// With `leading` false the caller never runs an fsync for others: the syncer
    /// leads instead. A background thread (compaction runs at a lower priority) asks
    /// so, or commits arriving while its fsync runs would wait for it to be scheduled
    /// again before they learn they are durable.
    func waitUntilDurable(_ point: LogPoint, leading: Bool = true) throws {
        enum Next { case done, lead, wait(Waiter, startSyncer: Bool) }
        let next = try state.withLock { s -> Next in
            switch s.admit(point) {
            case .durable: return .done
            case let .failed(failure): throw failure
            case .pending: break
            }
            let startSyncer = s.startSyncing()
            if startSyncer && leading { return .lead }
            let waiter = Waiter()
            s.blocked.append((point, waiter))
            return .wait(waiter, startSyncer: startSyncer)
        }
        switch next {
        case .done:
            return
        case .lead:
            try lead(until: point)
        case let .wait(waiter, startSyncer):
            if startSyncer { wakeSyncer() }
            waiter.semaphore.wait()
            if let error = waiter.error { throw error }
        }
    }

    /// Suspends until `point` is durable (written already, as for ``waitUntilDurable(_:leading:)``);
    /// the syncer leads when no fsync runs.
    func durable(_ point: LogPoint) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            enum Next { case resume(StrataError?), queued(startSyncer: Bool) }
            let next = state.withLock { s -> Next in
                switch s.admit(point) {
                case .durable: return .resume(nil)
                case let .failed(failure): return .resume(failure)
                case .pending:
                    s.suspended.append((point, continuation))
                    return .queued(startSyncer: s.startSyncing())
                }
            }
            switch next {
            case let .resume(error):
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            case let .queued(startSyncer):
                if startSyncer { wakeSyncer() }
            }
        }
    }

    /// Blocks until no fsync runs and keeps new leaders out until `body` returns:
    /// a roll or close closes or replaces the file a leader would sync.
    func exclusive<T>(_ body: () throws -> T) rethrows -> T {
        while true {
            let semaphore = state.withLock { s -> DispatchSemaphore? in
                if s.startSyncing() { return nil }
                let semaphore = DispatchSemaphore(value: 0)
                s.idle.append(semaphore)
                return semaphore
            }
            guard let semaphore else { break }
            semaphore.wait()
        }
        defer { release() }
        return try body()
    }

    /// Waits for a leader's fsync in flight and forgets the file: the store closes it.
    /// Commits appended before were made durable by the close's own fsync.
    func close() {
        exclusive {
            state.withLock { $0.file = nil }
        }
        syncer.stop()
    }

    /// Ends leadership, or hands it to the syncer when waiters remain.
    private func release() {
        let (startSyncer, idle) = state.withLock { s -> (Bool, [DispatchSemaphore]) in
            if s.failure == nil && (!s.blocked.isEmpty || !s.suspended.isEmpty) {
                return (true, [])
            }
            s.syncing = false
            defer { s.idle.removeAll() }
            return (false, s.idle)
        }
        if startSyncer { wakeSyncer() }
        idle.forEach { $0.signal() }
    }

    /// Has the syncer lead: called with `syncing` set on its behalf.
    private func wakeSyncer() {
        if !syncer.wake() { afterClose.async { try? self.lead(until: nil) } }
    }

    /// Syncs until `point` is durable (nil: until no waiter is left), waking the
    /// waiters each fsync covers. Called with `syncing` set by this leader.
    private func lead(until point: LogPoint?) throws {
        while true {
            let (file, target, done) = state.withLock { s -> ((any StorageFile)?, LogPoint, Bool) in
                let done: Bool
                if let point { done = s.durable >= point } else { done = s.blocked.isEmpty && s.suspended.isEmpty }
                return (s.file, s.appended, done || s.failure != nil)
            }
            if done { break }
            do {
                // No file and commits still owed an fsync: the store closed without making
                // them durable (its own fsync failed), and they are not.
                guard let file else { throw StrataError(.closed, "the store closed before the commit was durable") }
                try file.sync()
                onSync()
            } catch {
                let failure = onFailure(error)
                let woken = state.withLock { s -> [Wake] in
                    s.failure = failure
                    return s.takeAll(failing: failure)
                }
                woken.forEach { $0.resume() }
                release()
                throw failure
            }
            let woken = state.withLock { s -> [Wake] in
                s.durable = max(s.durable, target)
                return s.takeDurable()
            }
            woken.forEach { $0.resume() }
        }
        let failure = state.withLock { $0.failure }
        release()
        if let failure, let point, state.withLock({ $0.durable < point }) { throw failure }
    }

    /// A waiter to wake outside the lock.
    fileprivate enum Wake {
        case blocked(Waiter, StrataError?)
        case suspended(CheckedContinuation<Void, any Error>, StrataError?)

        func resume() {
            switch self {
            case let .blocked(waiter, error):
                waiter.error = error
                waiter.semaphore.signal()
            case let .suspended(continuation, error):
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }
}

extension GroupCommit.State {
    enum Admission { case durable, failed(StrataError), pending }

    /// Where a wait for `point` stands: durable already, refused by a failed fsync, or
    /// pending — and then what the next fsync covers is raised to `point`, whose bytes
    /// the caller has written whether or not a commit announced them.
    mutating func admit(_ point: LogPoint) -> Admission {
        if durable >= point { return .durable }
        if let failure { return .failed(failure) }
        appended = max(appended, point)
        return .pending
    }

    /// Marks an fsync (or a file swap) under way when none is; false when one is.
    mutating func startSyncing() -> Bool {
        guard !syncing else { return false }
        syncing = true
        return true
    }

    /// Takes the waiters whose points are durable now.
    mutating func takeDurable() -> [GroupCommit.Wake] {
        var woken: [GroupCommit.Wake] = []
        let durable = self.durable
        blocked.removeAll { point, waiter in
            guard point <= durable else { return false }
            woken.append(.blocked(waiter, nil))
            return true
        }
        suspended.removeAll { point, continuation in
            guard point <= durable else { return false }
            woken.append(.suspended(continuation, nil))
            return true
        }
        return woken
    }

    /// Takes every waiter, failing those not yet durable.
    mutating func takeAll(failing failure: StrataError) -> [GroupCommit.Wake] {
        var woken = takeDurable()
        woken += blocked.map { .blocked($0.1, failure) }
        woken += suspended.map { .suspended($0.1, failure) }
        blocked.removeAll()
        suspended.removeAll()
        return woken
    }
}
