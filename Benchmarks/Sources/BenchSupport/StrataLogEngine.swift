import Foundation
import Logging
import StrataLog

/// Strata's storage engine used directly: one record per employee, keyed by id, with
/// the compact `EmployeeCodec` value and the department reference as an index term
/// (as the object layer will keep to-one references).
public struct StrataLogEngine: EmployeeEngine {
    public let durability: LogStoreOptions.Durability
    /// Index number of the department term.
    static let departmentIndex: UInt32 = 1

    public init(durability: LogStoreOptions.Durability) {
        self.durability = durability
    }

    public var side: EngineSide { .strata }
    public var fixtureBuilder: any EmployeeEngine { StrataLogEngine(durability: .none) }

    public var name: String {
        switch durability {
        case .everyCommit: "Strata log everyCommit"
        case .none: "Strata log none"
        case let .periodic(milliseconds): "Strata log periodic \(milliseconds)ms"
        }
    }

    public static func storePath(in directory: String) -> String {
        (directory as NSString).appendingPathComponent("Employees.strata")
    }

    public func create(in directory: String) throws -> any EmployeeStore {
        try StrataLogEmployeeStore(path: Self.storePath(in: directory), durability: durability, create: true)
    }

    public func open(in directory: String) throws -> any EmployeeStore {
        try StrataLogEmployeeStore(path: Self.storePath(in: directory), durability: durability, create: false)
    }

    /// Deletes the sealed segments' index files (format 2: `index/NNNNNN.idx`, FORMAT.md
    /// §7; and format-1 `.hint` files, should any be left), so that the next open rebuilds
    /// each from its segment, as an open after a lost index does.
    public static func removeIndexFiles(in directory: String) throws {
        let index = (storePath(in: directory) as NSString).appendingPathComponent("index")
        for name in try FileManager.default.contentsOfDirectory(atPath: index) where name.hasSuffix(".idx") || name.hasSuffix(".hint") {
            try FileManager.default.removeItem(atPath: (index as NSString).appendingPathComponent(name))
        }
    }
}

final class StrataLogEmployeeStore: EmployeeStore {
    let store: LogStore

    init(path: String, durability: LogStoreOptions.Durability, create: Bool) throws {
        var options = LogStoreOptions()
        options.durability = durability
        options.createIfMissing = create
        // The default logger prints a line on every open, which would be timed too.
        store = try LogStore.open(at: path, options: options, logger: Logger(label: "strata.bench") { _ in SwiftLogNoOpLogHandler() })
    }

    static func put(_ e: Employee, into batch: inout WriteBatch) {
        batch.put(RecordKey(UInt64(e.id)), value: EmployeeCodec.encode(e),
                  terms: [IndexTerm(index: StrataLogEngine.departmentIndex, value: EmployeeCodec.departmentTerm(e.departmentID))])
    }

    /// One transaction handed to the engine in chunks (`commit(chunks:)`), as SQLite
    /// is handed one row at a time: the transaction is never held whole, so its peak
    /// does not grow with N. (One `WriteBatch` of N puts would hold every record and
    /// index entry until the commit.)
    func insertInOneTransaction(_ employees: [Employee]) throws {
        var next = employees.startIndex
        try store.commit { batch, _ in
            let end = min(employees.endIndex, next + Self.chunk)
            for e in employees[next..<end] { Self.put(e, into: &batch) }
            next = end
            return next < employees.endIndex
        }
    }

    /// Rows a chunk, as `batchInsert(dictionaryHandler:)` takes them: up to this many
    /// is one ordinary commit.
    static let chunk = 32_768

    func insertEachInOwnTransaction(_ employees: ArraySlice<Employee>) throws {
        for e in employees {
            var batch = WriteBatch()
            Self.put(e, into: &batch)
            try store.commit(batch)
        }
    }

    func fetchNameAndSalary(ids: [Int64]) throws -> Int {
        var checksum = 0
        for id in ids {
            guard let record = try store.get(RecordKey(UInt64(id))),
                  let (name, salary) = EmployeeCodec.nameAndSalary(record.value) else { continue }
            checksum &+= Employee.fetchChecksum(name: name, salary: salary)
        }
        return checksum
    }

    func count() throws -> Int { store.count }

    func prepareForReopen() throws { try store.sealActiveSegment() }

    func close() throws { try store.close() }
}
