import Foundation
import Testing
import StrataLog
import StrataTestSupport
@testable import Strata

/// The context's registry table (open addressing, deletion by shifting runs back)
/// against a plain dictionary: random registrations, replacements and removals over
/// keys that share entity tags and neighbouring serials, through growth and shrinking.
@Suite struct ObjectRegistryTests {
    /// Live objects to register (the registry holds them unretained, so they are kept here).
    static func objects(_ count: Int) throws -> (ObjectStore, ObjectContext, [ManagedObject]) {
        let (store, ids) = try RegistryTests.store(count: count)
        let context = store.newContext()
        return (store, context, try ids.map { try context.object(with: $0) })
    }

    @Test(arguments: [1, 2, 3])
    func agreesWithADictionary(seed: UInt64) throws {
        let (store, _, objects) = try Self.objects(64)
        defer { try? store.close() }
        var random = SeededRandom(seed: seed)
        // Serials of three tags, dense (as a context's keys are) and a few far apart.
        let keys: [UInt64] = (0..<3).flatMap { tag in (1...300).map { UInt64(tag) << 48 | UInt64($0) } } + [0, 1 << 63, .max, 0xFFFF]
        var registry = ObjectRegistry()
        var model: [UInt64: ObjectIdentifier] = [:]
        for step in 0..<40_000 {
            let key = keys[Int(random.next() % UInt64(keys.count))]
            let object = objects[Int(random.next() % UInt64(objects.count))]
            // Phases that fill, then drain, so that the table grows and shrinks.
            let filling = (step / 5_000) % 2 == 0
            switch random.next() % 10 {
            case 0..<(filling ? 7 : 3):
                registry[RecordKey(key)] = ObjectContext.RegisteredObject(object)
                model[key] = ObjectIdentifier(object)
            case 3..<(filling ? 8 : 6):
                registry[RecordKey(key)] = nil
                model[key] = nil
            default:
                // Removal only when the entry names this object.
                registry.remove(RecordKey(key), ifNaming: object)
                if model[key] == ObjectIdentifier(object) { model[key] = nil }
            }
            // Find-or-register (a fetch's objects): the registered object if the key
            // has one, else the new one, registered.
            if step % 7 == 0 {
                let other = objects[Int(random.next() % UInt64(objects.count))]
                var made = false
                let answer = registry.object(for: RecordKey(key)) { made = true; return other }
                let expected = model[key] ?? ObjectIdentifier(other)
                #expect(ObjectIdentifier(answer) == expected)
                #expect(made == (model[key] == nil))
                model[key] = expected
            }
            // A reservation now and then (a fetch's) changes no answer.
            if step % 1_013 == 0 { registry.reserveCapacity(model.count + Int(random.next() % 500)) }
            #expect(registry.count == model.count)
            #expect(registry[RecordKey(key)]?.object.map(ObjectIdentifier.init) == model[key])
            if step % 997 == 0 {
                for k in keys { #expect(registry[RecordKey(k)]?.object.map(ObjectIdentifier.init) == model[k], "key \(k) at step \(step)") }
                #expect(registry.values.count == model.count)
            }
        }
        registry.removeAll()
        #expect(registry.isEmpty)
        for k in keys { #expect(registry[RecordKey(k)] == nil) }
    }

    /// A table reserved for a fetch's objects takes them without growing again.
    @Test func aReservedTableTakesItsObjectsWithoutGrowing() throws {
        let (store, _, objects) = try Self.objects(64)
        defer { try? store.close() }
        var registry = ObjectRegistry()
        registry.reserveCapacity(5_000)
        let buckets = registry.bucketCount
        #expect(buckets >= 5_000 * 4 / 3 && buckets < 5_000 * 8 / 3)
        for serial in 1...5_000 { registry[RecordKey(UInt64(serial))] = ObjectContext.RegisteredObject(objects[serial % objects.count]) }
        #expect(registry.bucketCount == buckets)
        for serial in 1...5_000 { #expect(registry[RecordKey(UInt64(serial))]?.object.map(ObjectIdentifier.init) == ObjectIdentifier(objects[serial % objects.count])) }
        registry.reserveCapacity(10)
        #expect(registry.bucketCount == buckets)
    }

    @Test func releasedObjectsGiveTheirBucketsBack() throws {
        let (store, ids) = try RegistryTests.store(count: 5_000)
        defer { try? store.close() }
        let context = store.newContext()
        do {
            let all = try ids.map { try context.object(with: $0) }
            #expect(context.registry.count == all.count)
            #expect(context.registry.bucketCount >= all.count)
        }
        #expect(context.registry.isEmpty)
        #expect(context.registry.bucketCount <= 64)
        // Registered again after the table shrank: the same answers.
        let again = try context.object(with: ids[4_321])
        #expect(context.registry[ids[4_321].key]?.object.map(ObjectIdentifier.init) == ObjectIdentifier(again))
        #expect(context.registry.count == 1)
    }
}
