import Logging
import ServiceLifecycle
import Strata
import StrataLog

/// A store as a swift-service-lifecycle `Service`: opened before the server starts
/// serving, maintained while it runs, closed last on shutdown.
///
/// ```swift
/// let store = try await StoreService.open(at: dataPath, model: model, logger: logger)
/// let app = Application(router: router)
/// app.addServices(store)                  // the server stops first, the store closes last
/// try await app.runService()
/// ```
///
/// While it runs it samples the store's gauges (``StoreMetrics``) and compacts when
/// superseded versions pass ``Configuration/compactionGarbageRatio`` or records of an
/// older layout wait to be rewritten, at most once per
/// ``Configuration/compactionMinimumInterval`` (or sooner when the last pass found
/// nothing to rewrite and garbage has grown since), beside requests (compaction holds
/// commits off only at its hand-overs: the seal of the active segment or the roll of
/// the active blob file it may start with, a manifest swap per group of segments, and
/// the collection of blob files). On graceful shutdown — after
/// the services added after it, the server among them, have stopped — it waits for
/// the reads and writes in flight, closes the store (a final fsync) and releases the
/// store's lock; on cancellation too.
public struct StoreService: Service {
    /// When the service compacts and samples.
    public struct Configuration: Sendable {
        /// Compact once this share of the store's bytes is superseded versions or
        /// unreferenced blobs, or when records of an older layout wait to be rewritten
        /// in the current one (a lightweight migration left them); nil never compacts.
        public var compactionGarbageRatio: Double? = 0.3
        /// At least this long between two compactions. After a pass that found
        /// nothing to rewrite, the next may come sooner, once the garbage ratio has
        /// grown by 0.05 since.
        public var compactionMinimumInterval: Duration = .seconds(600)
        /// At most this many bytes of records a second read by a compaction the policy
        /// starts (nil: as fast as it goes). The default is a background pace, about a
        /// gibibyte a minute: at full speed compaction takes a core and the disk from
        /// the requests beside it, and their durable saves wait for both (the benchmarks'
        /// "compaction while serving" rows measure the two). Raise it for a store whose
        /// writes supersede more than that.
        public var compactionBytesPerSecond: Int? = 16 << 20
        /// How often gauges are sampled and the garbage ratio looked at.
        public var checkInterval: Duration = .seconds(10)

        public init() {}
    }

    /// The store, open and serving.
    public let store: ObjectStore
    /// The metrics it reports to (installed as the store's instrument).
    public let metrics: StoreMetrics
    public let configuration: Configuration
    let logger: Logger

    /// Serves `store` (opened by the caller, e.g. with `ObjectStore.open(at:model:options:)`),
    /// reporting to `metrics`.
    public init(store: ObjectStore, metrics: StoreMetrics = StoreMetrics(), configuration: Configuration = Configuration(), logger: Logger) {
        self.store = store
        self.metrics = metrics
        self.configuration = configuration
        self.logger = logger
        store.setInstrument(metrics)
    }

    /// Opens (and, as `options` ask, migrates) the store off the cooperative pool and
    /// serves it, its migration measured by `metrics`.
    public static func open(at path: String, model: ObjectModel, options: StoreOptions = StoreOptions(), metrics: StoreMetrics = StoreMetrics(),
                            configuration: Configuration = Configuration(), logger: Logger) async throws -> StoreService {
        var options = options
        options.instrument = metrics
        let store = try await ObjectStore.open(at: path, model: model, options: options)
        logger.info("store open", metadata: ["path": "\(path)", "objects": "\((try? store.records.count(in: nil)) ?? 0)"])
        return StoreService(store: store, metrics: metrics, configuration: configuration, logger: logger)
    }

    public func run() async throws {
        // Maintenance runs until graceful shutdown (or cancellation); the close runs either way.
        await cancelWhenGracefulShutdown {
            await maintain()
        }
        logger.info("store closing", metadata: ["pendingWrites": "\(store.health.pendingWrites)"])
        // The last sample is of the open store: a closed one has no files to measure,
        // and its gauges would read as an empty store all of whose bytes are garbage.
        metrics.sample(store)
        try await store.close()
        logger.info("store closed")
    }

    /// Samples, and compacts by the policy, until cancelled: in two loops, so that the
    /// gauges go on being sampled while a compaction runs, which at its rate cap may
    /// take minutes.
    func maintain() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.sampleUntilCancelled() }
            group.addTask { await self.compactUntilCancelled() }
        }
    }

    func sampleUntilCancelled() async {
        while !Task.isCancelled {
            metrics.sample(store)
            do {
                try await Task.sleep(for: configuration.checkInterval)
            } catch {
                return
            }
        }
    }

    func compactUntilCancelled() async {
        var schedule = CompactionSchedule()
        while !Task.isCancelled {
            if shouldCompact(schedule) {
                let garbage = store.records.usage.garbageRatio
                let foundWork = await compact()
                schedule = CompactionSchedule(lastPass: .now, emptyPassRatio: foundWork ? nil : garbage)
                // What it reclaimed shows at once, not a check interval later.
                metrics.sample(store)
            }
            do {
                try await Task.sleep(for: configuration.checkInterval)
            } catch {
                return
            }
        }
    }

    /// When the policy's last pass ran, and the garbage ratio then if it found nothing
    /// to rewrite.
    struct CompactionSchedule {
        var lastPass: ContinuousClock.Instant?
        var emptyPassRatio: Double?
    }

    /// How much the garbage ratio must grow after a pass that found nothing to rewrite
    /// before the policy tries again within the minimum interval. Such a pass meets
    /// garbage that no file holds past the store's own threshold, or versions a
    /// history retention keeps: trying again at once would find the same, and waiting
    /// the whole interval would leave garbage that has since piled up in one file.
    static let emptyPassRise = 0.05

    func shouldCompact(_ schedule: CompactionSchedule) -> Bool {
        guard let ratio = configuration.compactionGarbageRatio, store.health.isWritable else { return false }
        let garbage = store.records.usage.garbageRatio
        guard garbage >= ratio || store.awaitsLayoutRewrite else { return false }
        guard let lastPass = schedule.lastPass, ContinuousClock.now - lastPass < configuration.compactionMinimumInterval else { return true }
        if let empty = schedule.emptyPassRatio { return garbage >= empty + Self.emptyPassRise }
        return false
    }

    /// Compacts once; false when the pass found nothing to compact or collect (a pass
    /// that failed or was stopped counts as one that found something).
    @discardableResult
    func compact() async -> Bool {
        do {
            // Cancelled (the service shutting down), the compaction stops at its next
            // frame rather than holding the shutdown for the rest of its pass.
            let report = try await store.compact(bytesPerSecond: configuration.compactionBytesPerSecond)
            guard report.segmentsCompacted > 0 || report.blobFilesCollected > 0 else {
                logger.debug("compaction found nothing to rewrite", metadata: ["report": "\(report)"])
                return false
            }
            logger.info("compacted", metadata: [
                "reclaimedBytes": "\(max(0, report.segmentBytesBefore - report.segmentBytesAfter) + report.blobBytesReclaimed)",
                "steps": "\(report.steps)", "duration": "\(report.duration)", "longestPause": "\(report.longestPause)", "report": "\(report)",
            ])
        } catch let error as StrataError where error.code == .closed {
            // The store is closing: its close stopped the compaction, not a fault.
            logger.info("compaction stopped: the store is closing", metadata: ["error": "\(error)"])
        } catch is CancellationError {
            logger.info("compaction stopped: the service is shutting down")
        } catch {
            // Not fatal to the service: the store stays as it was (compaction swaps
            // the manifest only after each group is written), and a failure that
            // made it read-only shows in `health`.
            logger.warning("compaction failed", metadata: ["error": "\(error)"])
        }
        return true
    }
}
