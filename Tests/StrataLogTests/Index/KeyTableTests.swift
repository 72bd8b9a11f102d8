import Testing
import StrataTestSupport
@testable import StrataLog

/// The overlay's key table against a plain dictionary: random keys (dense runs, as
/// serials are, and scattered ones that collide in the low bits), replacements,
/// reservations and growth; the entries keep their first arrival's order.
@Suite struct KeyTableTests {
    private static func entry(_ key: UInt64, _ sequence: UInt64) -> IndexEntry {
        IndexEntry(key: RecordKey(key), sequence: sequence, isTombstone: sequence % 7 == 0,
                   location: RecordLocation(segment: 1, frameOffset: UInt32(truncatingIfNeeded: key), frameLength: 64,
                                            recordOffset: 0, recordLength: 32), blobs: [])
    }

    @Test(arguments: [1, 2, 3])
    func aKeyTableAnswersAsADictionary(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var table = KeyTable()
        var model: [UInt64: IndexEntry] = [:]
        var order: [UInt64] = []
        for step in UInt64(1)...20_000 {
            let key: UInt64 = switch rng.next() % 3 {
            case 0: rng.next() % 5_000                      // dense, often replaced
            case 1: (rng.next() % 4_000) << 20              // low bits all zero
            default: rng.next()
            }
            if step % 1_000 == 0 { table.reserve(Int(rng.next() % 3_000)) }
            let e = Self.entry(key, step)
            let replaced = table.set(e)
            #expect(replaced == model[key])
            if model[key] == nil { order.append(key) }
            model[key] = e
        }
        #expect(table.count == model.count)
        #expect(table.entries.map(\.key.rawValue) == order)
        for (key, e) in model { #expect(table[RecordKey(key)] == e) }
        for _ in 0..<2_000 {
            let key = rng.next()
            #expect(table[RecordKey(key)] == model[key])
        }
    }
}
