import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// The context's table of changed objects (dense arrays found through open
/// addressing, deletion by moving the last object into the gap and shifting runs
/// back) against a plain dictionary: random sets, replacements and removals over keys
/// that share entity tags and neighbouring serials, through growth and shrinking.
@Suite struct ChangedObjectsTests {
    @Test(arguments: [1, 2, 3])
    func agreesWithADictionary(seed: UInt64) throws {
        let (store, _, objects) = try ObjectRegistryTests.objects(64)
        defer { try? store.close() }
        var random = SeededRandom(seed: seed)
        let keys: [UInt64] = (0..<3).flatMap { tag in (1...300).map { UInt64(tag) << 48 | UInt64($0) } } + [0, 1 << 63, .max, 0xFFFF]
        var changed = ChangedObjects()
        var model: [UInt64: ObjectIdentifier] = [:]
        for step in 0..<40_000 {
            let key = keys[Int(random.next() % UInt64(keys.count))]
            let object = objects[Int(random.next() % UInt64(objects.count))]
            // Phases that fill, then drain, so that the table grows and shrinks.
            let filling = (step / 5_000) % 2 == 0
            if random.next() % 10 < (filling ? 7 : 3) {
                changed[RecordKey(key)] = object
                model[key] = ObjectIdentifier(object)
            } else {
                changed[RecordKey(key)] = nil
                model[key] = nil
            }
            #expect(changed.count == model.count)
            #expect(changed[RecordKey(key)].map(ObjectIdentifier.init) == model[key])
            if step % 997 == 0 {
                for k in keys { #expect(changed[RecordKey(k)].map(ObjectIdentifier.init) == model[k], "key \(k) at step \(step)") }
                #expect(Set(changed.values.map(ObjectIdentifier.init)) == Set(model.values))
                #expect(changed.sortedByKey().map(ObjectIdentifier.init) == model.keys.sorted().map { model[$0]! })
            }
        }
        changed.removeAll()
        #expect(changed.isEmpty)
        for k in keys { #expect(changed[RecordKey(k)] == nil) }
    }

    /// Objects that arrive in key order come out as they are; any other order is sorted.
    @Test func sortsByKey() throws {
        let (store, _, objects) = try ObjectRegistryTests.objects(8)
        defer { try? store.close() }
        var ascending = ChangedObjects()
        for (i, object) in objects.enumerated() { ascending[RecordKey(UInt64(10 + i))] = object }
        #expect(ascending.sortedByKey().map(ObjectIdentifier.init) == objects.map(ObjectIdentifier.init))
        var shuffled = ChangedObjects()
        let order = [5, 2, 7, 0, 3, 6, 1, 4]
        for i in order { shuffled[RecordKey(UInt64(10 + i))] = objects[i] }
        #expect(shuffled.sortedByKey().map(ObjectIdentifier.init) == objects.map(ObjectIdentifier.init))
        // A removal moves the last object into the gap: still found, still sorted.
        shuffled[RecordKey(15)] = nil
        #expect(shuffled[RecordKey(14)] === objects[4])
        #expect(shuffled.sortedByKey().map(ObjectIdentifier.init) == objects.enumerated().filter { $0.offset != 5 }.map { ObjectIdentifier($0.element) })
    }

    /// A save empties the table whole; removals one by one give the buckets back too.
    @Test func givesItsBucketsBack() throws {
        let (store, _, objects) = try ObjectRegistryTests.objects(4)
        defer { try? store.close() }
        var changed = ChangedObjects()
        for i in 0..<10_000 { changed[RecordKey(UInt64(i))] = objects[i % 4] }
        #expect(changed.bucketCount >= 10_000)
        for i in 0..<9_990 { changed[RecordKey(UInt64(i))] = nil }
        #expect(changed.count == 10)
        #expect(changed.bucketCount <= 128)
        for i in 9_990..<10_000 { #expect(changed[RecordKey(UInt64(i))] === objects[i % 4]) }
    }
}
