import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names the damage case under way when the process dies or a case stops progressing:
/// a trap (a finding: it ends the test process) is reported with the case's edit, a
/// case still running after `hangSeconds` is printed as a possible hang and, after
/// `stopSeconds`, stops the process (noted in the journal first, if there is one). The crash
/// note is written from the signal handler with `write(2)` alone, from a buffer filled
/// before the case starts; the previous handler (Swift's backtracer) runs after it.
enum DamageWatch {
    static let hangSeconds = 20.0
    static let stopSeconds = 120.0
    static let noteCapacity = 2048
    nonisolated(unsafe) static var note = UnsafeMutablePointer<UInt8>.allocate(capacity: noteCapacity)
    nonisolated(unsafe) static var noteLength = 0
    /// The handlers found at `start`, by signal number (read by the handler, so no
    /// dictionary), and whether each was saved.
    nonisolated(unsafe) static var previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 64)
    nonisolated(unsafe) static var saved = [Bool](repeating: false, count: 64)
    nonisolated(unsafe) static var installed = false
    static let signals: [Int32] = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]
    static let state = WatchState()

    /// Installs the crash note and starts the hang watch; `end` undoes both.
    static func start(journal: DamageJournal? = nil) {
        guard !installed else { return }
        state.journal = journal
        installed = true
        #if os(Linux)
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                _ = write(2, DamageWatch.note, DamageWatch.noteLength)
                // The previous handler takes the signal again: a trap instruction runs
                // again on return, an abort is raised anew.
                _ = sigaction(number, DamageWatch.previous + Int(number), nil)
                if number == SIGABRT { raise(number) }
            }
            sigemptyset(&action.sa_mask)
            if sigaction(number, &action, previous + Int(number)) == 0 { saved[Int(number)] = true }
        }
        #endif
        state.start()
    }

    static func end() {
        guard installed else { return }
        installed = false
        #if os(Linux)
        for number in signals where saved[Int(number)] {
            _ = sigaction(number, previous + Int(number), nil)
            saved[Int(number)] = false
        }
        #endif
        noteLength = 0
        state.stop()
    }

    /// Notes the case about to run.
    static func begin(_ description: String) {
        let text = Array("\n*** damage case in progress when the process stopped: \(description)\n".utf8.prefix(noteCapacity))
        noteLength = 0
        text.withUnsafeBufferPointer { note.update(from: $0.baseAddress!, count: text.count) }
        noteLength = text.count
        state.begin(description)
    }
}

/// The hang watch: a thread that looks every second at the case under way.
final class WatchState: @unchecked Sendable {
    private let lock = NSLock()
    private var current: (description: String, started: Date, reported: Bool)?
    /// Bumped by every start and stop: a watch thread runs while it sees its own.
    private var generation = 0
    private var running = false
    var journal: DamageJournal? {
        get { lock.withLock { journalStorage } }
        set { lock.withLock { journalStorage = newValue } }
    }
    private var journalStorage: DamageJournal?

    func begin(_ description: String) {
        lock.withLock { current = (description, Date(), false) }
    }

    func start() {
        let mine = lock.withLock { () -> Int? in
            guard !running else { return nil }
            running = true
            generation += 1
            return generation
        }
        guard let mine else { return }
        Thread.detachNewThread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 1)
                let (live, stuck, stop, journal) = lock.withLock { () -> (Bool, String?, String?, DamageJournal?) in
                    guard generation == mine, let now = current else { return (generation == mine, nil, nil, nil) }
                    let elapsed = Date().timeIntervalSince(now.started)
                    if elapsed > DamageWatch.stopSeconds { return (true, nil, now.description, journalStorage) }
                    guard !now.reported, elapsed > DamageWatch.hangSeconds else { return (true, nil, nil, nil) }
                    current?.reported = true
                    return (true, now.description, nil, nil)
                }
                guard live else { return }
                if let stuck {
                    FileHandle.standardError.write(Data("*** damage case still running after \(Int(DamageWatch.hangSeconds)) s (a hang?): \(stuck)\n".utf8))
                }
                if let stop {
                    journal?.hang()
                    FileHandle.standardError.write(Data("*** damage case HANGS (still running after \(Int(DamageWatch.stopSeconds)) s), stopping: \(stop)\n".utf8))
                    _exit(3)
                }
            }
        }
    }

    func stop() {
        lock.withLock { running = false; generation += 1; current = nil; journalStorage = nil }
    }
}
