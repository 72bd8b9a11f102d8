#if Postgres
import Dispatch
import Logging
import NIOCore
import PostgresNIO
import StrataLog

/// Hears other processes' commits: a connection of its own that LISTENs on the
/// store's channel, to which each commit NOTIFYs its sequence. When the connection
/// drops it connects again and reports a commit (sequence 0) at once, so that a feed
/// reads what it may have missed meanwhile from the history.
final class CommitListener: Sendable {
    let location: PostgresLocation
    let channel: String
    let logger: Logger
    private struct State {
        var observer: (@Sendable (UInt64) -> Void)?
        var link: PostgresLink?
        var stopped = false
    }
    private let state = Locked(State())

    init(location: PostgresLocation, channel: String, logger: Logger) {
        self.location = location
        self.channel = channel
        self.logger = logger
    }

    /// Starts listening for `observer` (nil: stops reporting).
    func start(_ observer: (@Sendable (UInt64) -> Void)?) {
        let connect = state.withLock { s -> Bool in
            s.observer = observer
            return observer != nil && s.link == nil && !s.stopped
        }
        if connect { listen(firstTime: true) }
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

    private func listen(firstTime: Bool) {
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
            guard !s.stopped else { return false }
            s.link = link
            return true
        }
        guard keep else {
            link.close()
            return
        }
        // Commits made while no connection listened are read from the history.
        if !firstTime { report(0) }
        link.connection.closeFuture.whenComplete { [weak self] _ in
            guard let self else { return }
            let again = self.state.withLock { s -> Bool in
                guard s.link === link else { return false }
                s.link = nil
                return !s.stopped
            }
            if again { self.retry() }
        }
    }

    private func retry() {
        // Connecting waits on a future: off the event loop.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { [weak self] in
            guard let self, !self.state.withLock({ $0.stopped }) else { return }
            self.listen(firstTime: false)
        }
    }
}
#endif
