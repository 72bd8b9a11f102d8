import StrataLog

/// The seam between the object layer and storage, as Core Data's persistent stores
/// are: versioned records under 64-bit keys, blobs by reference, secondary terms and
/// metadata. The segment log (`LogStore`) is the default store type; the in-memory
/// store type is the same engine over an `InMemoryFileSystem`. A database-server store
/// type can stand behind the same protocol: nothing in the object layer reaches
/// around it into files.
public protocol RecordStore: AnyObject, Sendable {
    var metadata: [String: [UInt8]] { get }
    func setMetadata(_ metadata: [String: [UInt8]]) throws
    var storeID: [UInt8] { get }
    var lastSequence: UInt64 { get }
    func get(_ key: RecordKey) throws -> Record?
    func get(_ keys: [RecordKey]) throws -> [Record?]
    func sequence(of key: RecordKey) -> UInt64?
    func contains(_ key: RecordKey) -> Bool
    func keys(in range: Range<RecordKey>?) -> [RecordKey]
    func keys(in range: Range<RecordKey>?, after: RecordKey?, limit: Int) -> [RecordKey]
    func keys(for term: IndexTerm) -> [RecordKey]
    func keys(index: UInt32, from lower: [UInt8]?, through upper: [UInt8]?, lowerInclusive: Bool, upperInclusive: Bool) -> [RecordKey]
    func writeBlob(_ bytes: [UInt8]) throws -> BlobRef
    func readBlob(_ ref: BlobRef) throws -> [UInt8]
    @discardableResult func commit(_ batch: WriteBatch) throws -> UInt64
    var statistics: LogStatistics { get }
    func resetStatistics()
    func verify() throws -> VerifyReport
    var usage: StoreUsage { get }
    @discardableResult func compact(force: Bool) throws -> CompactionReport
    func close() throws
}

extension LogStore: RecordStore {}
