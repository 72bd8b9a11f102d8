import Foundation
import Synchronization

/// Stores of N employees built once per process and engine side, for the workloads
/// that read (fetch, open). Built with the side's fastest configuration (the bytes on
/// disk are the same), then sealed (Strata: hint files) or checkpointed (SQLite).
public final class FixtureCache: Sendable {
    public static let shared = FixtureCache()

    private let directories = Mutex<[String: ScratchDirectory]>([:])

    /// The directory holding a store of `count` employees written by `engine`'s side.
    public func directory(for engine: any EmployeeEngine, employees: [Employee]) throws -> String {
        let key = "\(engine.side.rawValue)-\(employees.count)"
        if let existing = directories.withLock({ $0[key] }) { return existing.path }
        let scratch = try ScratchDirectory("fixture-\(key)")
        let builder: any EmployeeEngine = engine.side == .strata
            ? StrataLogEngine(durability: .none) : GRDBEngine(synchronous: .normal)
        let store = try builder.create(in: scratch.path)
        try store.insertInOneTransaction(employees)
        try store.prepareForReopen()
        try store.close()
        directories.withLock { $0[key] = scratch }
        return scratch.path
    }

    /// Deletes every fixture (at exit).
    public func removeAll() {
        let all = directories.withLock { d -> [ScratchDirectory] in defer { d = [:] }; return Array(d.values) }
        for scratch in all { scratch.remove() }
    }
}
