import Testing
@testable import StrataLog

/// What the model-checked engine suites expect of a store after each step: exactly
/// `model`'s keys and values, each blob reading back as the value twice, term index 1
/// holding each live key under `key % residues`, counters that agree with a count, and
/// a sound `verify()`.
enum StoreModelCheck {
    static func expect(_ store: LogStore, holds model: [UInt64: [UInt8]], residues: UInt8, _ context: String) throws {
        #expect(store.count == model.count, "\(context)")
        #expect(try store.keys() == model.keys.sorted().map { RecordKey($0) }, "\(context)")
        for (key, value) in model {
            let record = try store.get(RecordKey(key))
            #expect(record?.value == value, "\(context): \(key)")
            for blob in record?.blobs ?? [] { #expect(try store.readBlob(blob) == value + value, "\(context): blob of \(key)") }
        }
        for residue in UInt8(0)..<residues {
            #expect(try store.keys(for: IndexTerm(index: 1, value: [residue])) == model.keys.filter { UInt8($0 % UInt64(residues)) == residue }.sorted().map { RecordKey($0) },
                    "\(context): term \(residue)")
        }
        let report = try store.verify()
        #expect(report.isSound, "\(context): \(report)")
    }
}
