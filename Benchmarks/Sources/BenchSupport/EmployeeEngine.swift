import Foundation
/// One engine, in one configuration, under the workloads: Strata's engine (`StrataLog`),
/// Strata's object layer (`Strata`: contexts and fetch requests), and the peer, SQLite
/// through GRDB.
/// Both runners (package-benchmark and BenchSummary) drive engines only through this
/// protocol, so adding a variant is adding a conforming type.
public protocol EmployeeEngine: Sendable {
    /// Which side of the ratio this engine is on.
    var side: EngineSide { get }
    /// A short name for tables and benchmark names: "Strata log everyCommit", "SQLite FULL".
    var name: String { get }
    /// Creates an empty store (schema included) in `directory`, which exists and is empty.
    func create(in directory: String) throws -> any EmployeeStore
    /// Opens the store an earlier `create` left in `directory`.
    func open(in directory: String) throws -> any EmployeeStore
    /// The configuration that builds this engine's read fixtures (its fastest; the bytes
    /// on disk are the same). Its `name` keys `FixtureCache`.
    var fixtureBuilder: any EmployeeEngine { get }
}

public enum EngineSide: String, Sendable {
    case strata = "Strata"
    case sqlite = "SQLite"
}

/// An open store of employees. Not shared between threads.
public protocol EmployeeStore: AnyObject {
    /// Inserts all employees in one transaction.
    func insertInOneTransaction(_ employees: [Employee]) throws
    /// Inserts each employee in a transaction of its own.
    func insertEachInOwnTransaction(_ employees: ArraySlice<Employee>) throws
    /// Inserts each employee in a transaction of its own, durable before the next one
    /// on its thread, from `threads` threads at once: how the store serves concurrent
    /// writers (Strata's group commit shares an fsync among the commits that wait for
    /// one; SQLite's WAL takes writers one at a time). Throws for an engine without it.
    func insertEachInOwnTransaction(_ employees: ArraySlice<Employee>, threads: Int) throws
    /// Looks up every id and reads name and salary; returns a checksum of what it read
    /// (so that nothing is optimised away and both engines can be compared).
    func fetchNameAndSalary(ids: [Int64]) throws -> Int
    /// The number of employees (SQLite: `SELECT COUNT(*)`, Strata: the index's count).
    func count() throws -> Int
    /// Set-up before lookups, outside the measurement (the object layer lists its ids).
    func prepareForFetch() throws
    /// Runs `EmployeeQuery`s one after another and reads name and salary of every
    /// result; returns a checksum of what it read. Throws for an engine without queries.
    func run(_ queries: [EmployeeQuery]) throws -> Int
    /// Makes the store's on-disk state the one a later `open` should see (Strata:
    /// seals the active segment so its index file exists).
    func prepareForReopen() throws
    func close() throws
}

extension Employee {
    /// The checksum `fetchNameAndSalary` adds per employee found.
    @inline(__always)
    public static func fetchChecksum(name: String, salary: Int64) -> Int {
        name.utf8.count &+ Int(truncatingIfNeeded: salary)
    }
}

extension EmployeeStore {
    public func prepareForFetch() throws {}

    public func insertEachInOwnTransaction(_ employees: ArraySlice<Employee>, threads: Int) throws {
        throw BenchError("this engine has no concurrent writers")
    }

    /// Runs `body` on `threads` threads at once, each with its share of `employees`
    /// (contiguous runs); rethrows the first error.
    public func onThreads(_ employees: ArraySlice<Employee>, threads: Int, _ body: @Sendable (ArraySlice<Employee>) throws -> Void) throws {
        let threads = max(1, threads)
        let share = (employees.count + threads - 1) / threads
        let failure = NSLock()
        nonisolated(unsafe) var first: (any Error)?
        DispatchQueue.concurrentPerform(iterations: threads) { index in
            let start = employees.startIndex + min(employees.count, index * share)
            let end = min(employees.endIndex, start + share)
            do {
                try body(employees[start..<end])
            } catch {
                failure.lock()
                if first == nil { first = error }
                failure.unlock()
            }
        }
        if let first { throw first }
    }

    public func run(_ queries: [EmployeeQuery]) throws -> Int {
        throw BenchError("this engine has no queries")
    }
}

/// A failure of the benchmark's own set-up or checks.
public struct BenchError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
