import Foundation
import Strata
import StrataLog

/// `concurrent STORE SEED`: `ConcurrentWorkload.threads` threads commit at once through
/// `LogStore.commit`, so commits share fsyncs (group commit). Prints
/// `READY s0 s1 …` (each thread's first commit of this run) once the store is open,
/// then `ACK thread index` after each commit returned. Killed by the test with SIGKILL.
struct ConcurrentCrashWorker {
    var path: String
    var seed: UInt64

    func run() throws -> Never {
        let store = try LogStore.open(at: path, options: ConcurrentWorkload.engineOptions(), logger: CrashWorker.logger())
        let heads = try ConcurrentWorkload.heads(in: store)
        CrashWorker.emit("READY " + heads.map { String($0 + 1) }.joined(separator: " "))
        let seed = seed
        for thread in 0..<ConcurrentWorkload.threads {
            let first = heads[thread] + 1
            // Threads of their own, not a pool's: all eight are in `commit` at once.
            Thread.detachNewThread {
                do {
                    var index = first
                    while true {
                        try Self.commit(thread: thread, index: index, seed: seed, to: store)
                        CrashWorker.emit("ACK \(thread) \(index)")
                        index += 1
                    }
                } catch {
                    CrashWorker.die("thread \(thread): \(error)")
                }
            }
        }
        while true { sleep(60) }
    }

    /// Commit `index` of `thread`: its data key (with its blob, written first) and its head key.
    static func commit(thread: Int, index: UInt64, seed: UInt64, to store: LogStore) throws {
        var refs: [BlobRef] = []
        if let bytes = ConcurrentWorkload.blob(thread: thread, index: index, seed: seed) {
            refs.append(try store.writeBlob(bytes))
        }
        var batch = WriteBatch()
        batch.put(RecordKey(ConcurrentWorkload.key(thread: thread, index: index)),
                  value: ConcurrentWorkload.value(thread: thread, index: index, seed: seed), blobs: refs)
        batch.put(RecordKey(ConcurrentWorkload.key(thread: thread, index: 0)),
                  value: ConcurrentWorkload.headValue(thread: thread, index: index))
        try store.commit(batch)
    }
}

/// `objects STORE SEED`: `ConcurrentWorkload.lanes(seed:)` tasks (16 to 64) write at
/// once through `ObjectStore.write`, each inserting its numbered Items in order and
/// updating its Lane's count in the same save. Prints `READY s0 s1 …` (each lane's
/// first item of this run), then `ACK lane index serial` after each write returned.
struct ObjectCrashWorker {
    var path: String
    var seed: UInt64

    func run() throws -> Never {
        let store = try ObjectStore(at: path, model: ConcurrentWorkload.model(), options: ConcurrentWorkload.objectOptions())
        let lanes = ConcurrentWorkload.lanes(seed: seed)
        // Where each lane left off: its Lane object and count.
        var heads = [(id: ObjectID?, count: Int)](repeating: (nil, 0), count: lanes)
        let context = store.newContext()
        for lane in try context.fetch(FetchRequest(entityName: "Lane")) {
            guard let number = try lane.int("number"), number >= 0, number < lanes, let count = try lane.int("count") else {
                throw WorkerFailure("a Lane object that is no workload lane: \(lane.objectID)")
            }
            heads[number] = (lane.objectID, count)
        }
        CrashWorker.emit("READY " + heads.map { String($0.count + 1) }.joined(separator: " "))
        let seed = seed
        for lane in 0..<lanes {
            let head = heads[lane]
            Task.detached {
                do {
                    var laneID = head.id
                    var index = head.count + 1
                    while true {
                        let known = laneID
                        let number = index
                        let (item, laneObject) = try await store.write { context in
                            try Self.insert(lane: lane, index: number, laneID: known, seed: seed, into: context)
                        }
                        CrashWorker.emit("ACK \(lane) \(number) \(item.serial)")
                        laneID = laneObject
                        index += 1
                    }
                } catch {
                    CrashWorker.die("lane \(lane): \(error)")
                }
            }
        }
        while true { sleep(60) }
    }

    /// Item `index` of `lane`, and the lane's count set to it (its Lane inserted by the
    /// lane's first write): returns both objects' ids.
    static func insert(lane: Int, index: Int, laneID: ObjectID?, seed: UInt64, into context: ObjectContext) throws -> (ObjectID, ObjectID) {
        let item = try context.insert("Item")
        try item.setValue(lane, forKey: "lane")
        try item.setValue(index, forKey: "index")
        try item.setValue(ConcurrentWorkload.itemName(lane: lane, index: index, seed: seed), forKey: "name")
        try item.setValue(ConcurrentWorkload.payload(lane: lane, index: index, seed: seed), forKey: "payload")
        let laneObject: ManagedObject
        if let laneID {
            laneObject = try context.existingObject(with: laneID)
        } else {
            laneObject = try context.insert("Lane")
            try laneObject.setValue(lane, forKey: "number")
        }
        try laneObject.setValue(index, forKey: "count")
        return (item.objectID, laneObject.objectID)
    }
}
