#if Postgres
import Dispatch
import Logging
import NIOCore
import PostgresNIO
import StrataLog

/// Hears other processes' commits: a connection of its own that LISTENs on the
/// store's channel, to which each commit NOTIFYs its sequence. Each time it starts
/// listening — first, and after the connection dropped — it reports a commit
/// (sequence 0), so that a feed reads what it may have missed meanwhile from the history.
final class CommitListener: Sendable {
    let location: PostgresLocation
    let channel: String
    let logger: Logger
    private struct State {
        var observer: (@Sendable (UInt64) -> Void)?
        var link: PostgresLink?
        /// A connection is being made (or retried): another start waits for it.
        var connecting = false
        var stopped = false
    }
    private let state = Locked(State())

    init(location: PostgresLocation, channel: String, logger: Logger) {
        self.location = location
        self.channel = channel
        self.logger = logger
    }

    /// Starts listening for `observer` (nil: stops reporting). It returns at once: the
    /// connection is made off the caller's thread, which may be one of the cooperative
    /// pool's, and the report made once it listens covers the commits made until then.
    func start(_ observer: (@Sendable (UInt64) -> Void)?) {
        let connect = state.withLock { s -> Bool in
            s.observer = observer
            guard observer != nil, s.link == nil, !s.connecting, !s.stopped else { return false }
            s.connecting = true
            return true
        }
        if connect {
            DispatchQueue.global().async { [self] in listen() }
        }
    }

    func stop() {
        let link = state.withLock { s -> PostgresLink? in
            s.stopped = true
            s.observer = nil
            defer { s.link = nil }
            return s.link
        }
        link?.close()
    }

    private func report(_ sequence: UInt64) {
        state.withLock { $0.observer }?(sequence)
    }

    private func listen() {
        var opened: PostgresLink?
        let link: PostgresLink
        do {
            link = try PostgresLink.connect(to: location, logger: logger)
            opened = link
            link.connection.addListener(channel: channel) { [weak self] _, notification in
                self?.report(UInt64(notification.payload) ?? 0)
            }
            try link.query("LISTEN \(channel)")
        } catch {
            opened?.close()
            logger.warning("listening for other processes' commits failed; trying again", metadata: ["error": "\(error)", "channel": "\(channel)"])
            retry()
            return
        }
        let keep = state.withLock { s -> Bool in
            s.connecting = false
            // One connection listens at a time: a second would report every commit twice.
            guard !s.stopped, s.link == nil else { return false }
            s.link = link
            return true
        }
        guard keep else {
            link.close()
            return
        }
        // Commits made while no connection listened are read from the history.
        report(0)
        link.connection.closeFuture.whenComplete { [weak self] _ in
            guard let self else { return }
            let again = self.state.withLock { s -> Bool in
                guard s.link === link else { return false }
                s.link = nil
                // Set with the link's removal, so that no start() between them connects too.
                s.connecting = !s.stopped
                return !s.stopped
            }
            if again { self.retry() }
        }
    }

    private func retry() {
        // Connecting waits on a future: off the event loop.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { [weak self] in
            guard let self, !self.state.withLock({ $0.stopped }) else { return }
            self.listen()
        }
    }
}
#endif
