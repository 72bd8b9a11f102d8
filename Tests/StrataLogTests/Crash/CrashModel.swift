@testable import StrataCrashWorker
@testable import StrataLog

/// The crash oracle's model: the state after applying the workload's transactions
/// 1…`applied` in order, recomputed from the seed. A recovered store must equal it
/// exactly — every key, value and blob — for some prefix.
struct CrashModel {
    /// What a live key's current version must hold.
    struct Version: Equatable {
        var transaction: UInt64
        var valueSize: Int
        var blobs: [CrashWorkload.BlobSpec]
    }

    let seed: UInt64
    private(set) var applied: UInt64 = 0
    private(set) var live: [UInt64: Version] = [:]

    init(seed: UInt64) { self.seed = seed }

    /// Applies transactions up to `last`. Rounds only move forward: the next worker
    /// continues after what the store holds, so the model never needs to go back.
    mutating func advance(to last: UInt64) {
        while applied < last {
            applied += 1
            for operation in CrashWorkload.transaction(applied, seed: seed) {
                switch operation {
                case let .delete(key): live[key] = nil
                case let .put(key, valueSize, blobs): live[key] = Version(transaction: applied, valueSize: valueSize, blobs: blobs)
                }
            }
        }
    }

    /// Compares `store` with the model; returns what differs (empty when equal).
    /// It reads every live key and blob, so a half-applied transaction shows up as a
    /// key whose header names a later transaction, or one missing or present too early.
    func differences(from store: LogStore, limit: Int = 20) -> [String] {
        var problems: [String] = []
        func note(_ problem: String) { if problems.count < limit { problems.append(problem) } }
        let expectedKeys = live.keys.sorted()
        let actualKeys: [UInt64]
        do { actualKeys = try store.keys().map(\.rawValue) } catch { return ["keys could not be listed: \(error)"] }
        if actualKeys != expectedKeys {
            let extra = Set(actualKeys).subtracting(expectedKeys).sorted()
            let missing = Set(expectedKeys).subtracting(actualKeys).sorted()
            note("live keys differ after transaction \(applied): extra \(extra), missing \(missing)")
        }
        if store.count != expectedKeys.count { note("count is \(store.count), expected \(expectedKeys.count)") }
        if store.lastSequence != applied { note("lastSequence is \(store.lastSequence), expected \(applied)") }
        for key in expectedKeys {
            guard let version = live[key] else { continue }
            do {
                guard let record = try store.get(RecordKey(key)) else {
                    note("key \(key): missing, expected the version of transaction \(version.transaction)")
                    continue
                }
                compare(record, key: key, with: version, store: store, note: note)
            } catch {
                note("key \(key): read failed: \(error)")
            }
        }
        return problems
    }

    private func compare(_ record: Record, key: UInt64, with version: Version, store: LogStore, note: (String) -> Void) {
        let expected = CrashWorkload.value(seed: seed, transaction: version.transaction, key: key, size: version.valueSize)
        if record.value != expected {
            let found = ValueHeader(decoding: record.value).map { "transaction \($0.transaction)'s value for key \($0.key)" } ?? "\(record.value.count) unrecognised bytes"
            note("key \(key): holds \(found), expected transaction \(version.transaction)'s (\(version.valueSize) bytes)")
            return
        }
        if record.sequence != version.transaction {
            note("key \(key): sequence \(record.sequence), expected \(version.transaction)")
        }
        guard record.blobs.count == version.blobs.count else {
            note("key \(key): \(record.blobs.count) blob references, expected \(version.blobs.count)")
            return
        }
        for (index, (ref, spec)) in zip(record.blobs, version.blobs).enumerated() {
            do {
                let bytes = try store.readBlob(ref)
                if bytes != CrashWorkload.blob(seed: seed, transaction: version.transaction, key: key, index: index, spec: spec) {
                    note("key \(key): blob \(index) (\(ref)) has \(bytes.count) bytes that differ from transaction \(version.transaction)'s \(spec.size)")
                }
            } catch {
                note("key \(key): blob \(index) (\(ref)) unreadable: \(error)")
            }
        }
    }
}
