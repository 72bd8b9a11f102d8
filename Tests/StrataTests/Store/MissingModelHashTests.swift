import Strata
import StrataLog
import Testing

/// A store without its model hash is new only when it holds nothing else: one that has
/// the object layer's other metadata or any commit is damaged, and opening it as new
/// would read every record through a fresh schema.
@Suite struct MissingModelHashTests {
    @Test func aStoreWhoseModelHashWasRemovedIsCorrupt() throws {
        let fs = InMemoryFileSystem()
        var options = StoreOptions()
        options.fileSystem = fs
        let model = try ContextFixtures.company()
        let store = try ObjectStore(at: "/store", model: model, options: options)
        let context = store.newContext()
        _ = try ContextFixtures.employee(context, "Ada")
        try context.save()
        var metadata = store.records.metadata
        metadata["strata.modelHash"] = nil
        try store.records.setMetadata(metadata)
        try store.close()

        #expect {
            _ = try ObjectStore(at: "/store", model: model, options: options)
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .corrupt && error?.message.contains("strata.schema") == true
        }
    }

    @Test func anEngineStoreWithCommitsIsNotTakenForANewObjectStore() throws {
        let fs = InMemoryFileSystem()
        let engine = try LogStore.open(at: "/store", fileSystem: fs)
        var batch = WriteBatch()
        batch.put(RecordKey(1), value: [1])
        try engine.commit(batch)
        try engine.close()
        var options = StoreOptions()
        options.fileSystem = fs
        #expect {
            _ = try ObjectStore(at: "/store", model: try ContextFixtures.company(), options: options)
        } throws: { ($0 as? StrataError)?.code == .corrupt }
    }

    @Test func aNewStoreOpens() throws {
        var options = StoreOptions()
        options.fileSystem = InMemoryFileSystem()
        let store = try ObjectStore(at: "/store", model: try ContextFixtures.company(), options: options)
        #expect(store.records.metadata["strata.modelHash"] != nil)
    }
}
