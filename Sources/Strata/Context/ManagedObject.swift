import Foundation
import StrataLog

/// An object of a context: it starts as a fault (an id and nothing else) and loads its
/// record the first time a stored attribute is read. An external-storage attribute
/// loads its bytes from the blob area only when that attribute itself is read.
///
/// ```swift
/// let name = try employee.string("name")          // fires the fault: one record read
/// let photo = try employee.data("photo")          // only now: the blob's bytes
/// let department = try employee.object("department")   // a fault of the Department
/// ```
///
/// A `ManagedObject` belongs to one context and, like it, to one task or thread.
public final class ManagedObject: Hashable, CustomStringConvertible {
    /// The object's stable, `Sendable` identity, made when asked from the record key,
    /// the entity's name and the store's identifier. Kept whole, it would be 40 bytes
    /// of every object and a retain and release of the store's identifier per object
    /// made and freed (a list of many objects allocates them all, and every page they
    /// touch for the first time costs a fault).
    public var objectID: ObjectID {
        ObjectID(entityName: shape.entity.name, key: recordKey, storeIdentifier: contextLink.storeIdentifier)
    }
    /// The key of the object's record: what the context and the store know it by.
    let recordKey: RecordKey
    /// The object's entity (a concrete one).
    public var entity: EntityDescription { shape.entity }
    var layout: StoreSchema.EntityLayout { shape.layout }
    /// The entity's shape, held once, by `changes`, which needs it too: a second
    /// reference was 8 bytes of every object and a retain and release of the shape
    /// per object made and freed.
    var shape: StoreSchema.EntityShape { changes.shape }
    /// The context that owns the object; nil once the context is gone.
    public var context: ObjectContext? { contextLink.context }
    /// How the object reaches its context: shared by all of the context's objects and
    /// cut as the context goes. A `weak` reference did the same, but gave the context a
    /// side table, and with it slow-path reference counting on every retain and release
    /// of the context (each fault and insert retains it) and a weak load per access.
    let contextLink: ObjectContext.Link

    // The mutable state below is read and written on every access, and the object is
    // confined to its context's task: the runtime's exclusivity checks (a call and a
    // lookup per access) are left out. No access
    // to these overlaps another: none is passed `inout` to code that reaches the
    // object again.

    /// The record as last read from the store; nil while a fault (or never saved).
    @exclusivity(unchecked) var stored: StoredObject?
    /// Values set in this context and not yet saved.
    @exclusivity(unchecked) var changes: FieldChanges
    /// What few objects carry (`ObjectExtras`): nil until one is set.
    @exclusivity(unchecked) private var extras: ObjectExtras?
    /// The link of the typed model viewing this object: StrataData's `@Model` classes
    /// keep one instance per object through it. Not retained: the model holds its link
    /// and the object, and the link's `deinit` sets this back to nil as the model goes,
    /// so an unused model goes when its last user lets go. (A `weak` reference would do
    /// the same at the price of a side table per model and slow-path reference counting
    /// on every retain of the model.)
    package unowned(unsafe) var typedModelLink: AnyObject?
    /// The object's entity's name, read without copying its description.
    package var entityName: String { shape.entity.name }
    /// Sibling faults that fire together (batch faulting), when the object came from a fetch.
    var faultGroup: FaultGroup?

    @exclusivity(unchecked) var isNew = false
    @exclusivity(unchecked) public internal(set) var isDeleted = false
    /// Set on an object no registry holds and nobody else references, handed to
    /// another thread to be freed (``ObjectContext/releaseElsewhere(_:fields:)``): its
    /// `deinit` must not reach its context, which belongs to another thread.
    @exclusivity(unchecked) var leavesQuietly = false
    /// The object's position among its fault group's keys (set with `faultGroup`), so
    /// that firing it finds its batch without a table of the fetch's keys. Beside the
    /// two flags, in what was their padding: the object is no larger for it.
    @exclusivity(unchecked) var faultPosition: Int32 = 0
    /// The context's `changedGeneration` when it last put this object among its changed
    /// ones (0: never). Equal to the current one only while it is still there.
    @exclusivity(unchecked) var changedStamp: UInt64 = 0

    init(key: RecordKey, shape: StoreSchema.EntityShape, context: ObjectContext) {
        self.recordKey = key
        self.changes = FieldChanges(shape: shape)
        self.contextLink = context.link
    }

    deinit {
        // The context's registry does not retain its objects: each leaves it here.
        // The link is reached unretained: this object holds it until the end of
        // `deinit`, and a retain and release of it here were two atomic operations
        // on a line every object of the context shares.
        if leavesQuietly { return }
        Unmanaged.passUnretained(contextLink)._withUnsafeGuaranteedRef { $0.forget(self) }
    }

    /// Whether the object's values are not loaded yet.
    public var isFault: Bool { stored == nil && !isNew }
    /// Inserted in its context and not yet saved.
    public var isInserted: Bool { isNew && !isDeleted }
    /// Has unsaved changes to a stored property.
    public var isUpdated: Bool { !isNew && !isDeleted && !changes.isEmpty }
    /// Whether the object has unsaved changes of any kind.
    public var hasChanges: Bool { isNew || isDeleted || !changes.isEmpty }

    /// The names of stored properties changed and not yet saved.
    public var changedKeys: Set<String> { changes.names }

    public static func == (a: ManagedObject, b: ManagedObject) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String {
        "<\(entity.name) \(objectID.serial)\(isFault ? " (fault)" : "")\(isDeleted ? " (deleted)" : "")>"
    }

    func requireContext() throws -> ObjectContext {
        guard let context else {
            throw StrataError(.invalidArgument, "\(objectID) is used after its context was released", context: ["object": objectID.uriRepresentation])
        }
        return context
    }

    /// Loads the record if this is a fault.
    func fire() throws {
        if loadedFieldNumbers != nil { return try requireContext().completePartialObject(self) }
        guard stored == nil, !isNew else { return }
        try requireContext().fireFault(self)
    }

    /// The field number of a stored property, or an error naming entity and key.
    func fieldNumber(_ key: String) throws -> Int {
        if let number = shape.fieldNumber(named: key) { return number }
        throw unknownKey(key)
    }

    func unknownKey(_ key: String) -> StrataError {
        StrataError(.unknownKeyPath, "\(entity.name) has no property '\(key)'", context: ["entity": entity.name, "keyPath": key])
    }

    /// The effective stored field: the unsaved change if any, else the record's.
    func field(_ key: String) throws -> FieldValue {
        if let change = changes[key] { return change }
        return try field(number: try fieldNumber(key))
    }

    /// The effective stored field `number`: the unsaved change if any, else the record's.
    func field(number: Int) throws -> FieldValue {
        if let change = changes[number] { return change }
        if isNew { return .null }
        if let loaded = loadedFieldNumbers, loaded.contains(number), let stored, number < stored.fields.count {
            return stored.fields[number]
        }
        try fire()
        guard let stored, number < stored.fields.count else { return .null }
        return stored.fields[number]
    }
}

extension ManagedObject {
    /// The side state, made on its first write.
    private var writableExtras: ObjectExtras {
        if let extras { return extras }
        let made = ObjectExtras()
        extras = made
        return made
    }

    /// Whether any external binary read is kept (without making an empty dictionary to ask).
    var hasCachedBlobs: Bool { extras.map { !$0.blobCache.isEmpty } ?? false }

    /// External binaries read so far (by field number), freed by refresh.
    var blobCache: [Int: Data] {
        get { extras?.blobCache ?? [:] }
        set { if extras != nil || !newValue.isEmpty { writableExtras.blobCache = newValue } }
        _modify { yield &writableExtras.blobCache }
    }

    /// Transient attributes: never written.
    var transientValues: [String: Value] {
        get { extras?.transientValues ?? [:] }
        set { if extras != nil || !newValue.isEmpty { writableExtras.transientValues = newValue } }
        _modify { yield &writableExtras.transientValues }
    }

    /// Partial faulting (`FetchRequest.propertiesToFetch`, Fetch/): the field numbers
    /// `stored` really holds; the others are placeholders and reading one loads the
    /// whole record. Nil when `stored` is complete.
    var loadedFieldNumbers: Set<Int>? {
        get { extras?.loadedFieldNumbers }
        set { if extras != nil || newValue != nil { writableExtras.loadedFieldNumbers = newValue } }
    }
}

/// A managed object's state that most objects never have: external binaries read,
/// transient values, the fields a partial fetch loaded. One reference, nil in most
/// objects, in place of three collections in each: 16 bytes less per object, and
/// three empty collections neither made nor released.
final class ObjectExtras {
    var blobCache: [Int: Data] = [:]
    var transientValues: [String: Value] = [:]
    var loadedFieldNumbers: Set<Int>?
}

/// Faults handed out together by one fetch: firing one loads up to a batch of its
/// neighbours with one read per block, as Core Data's batch faulting does.
final class FaultGroup {
    /// The fetch's keys in result order, each with where its version lay when the
    /// fetch listed it (when it did: a plain fetch of an entity does).
    let keys: [LocatedKey]
    /// The store's last sequence before the fetch listed the keys: while it is still
    /// the last, no version has moved since, and a batch reads each record where it
    /// was listed, without looking its key up again (a lookup in an index file costs
    /// more than the rest of firing a fault). A record whose segment a compaction
    /// retired is looked up anyway (`visitRecords(located:)`). Nil: look every key up.
    let listedAt: UInt64?
    /// How many fire together; 0 means the store's `faultBatchSize`.
    let batchSize: Int

    convenience init(keys: [RecordKey], batchSize: Int = 0) {
        self.init(located: keys.map(LocatedKey.init), listedAt: nil, batchSize: batchSize)
    }

    init(located: [LocatedKey], listedAt: UInt64?, batchSize: Int = 0) {
        self.keys = located
        self.listedAt = listedAt
        self.batchSize = batchSize
    }

    /// Makes each of `objects` that `joins` accepts a member, at its position:
    /// `objects[i]` must be the object of `keys[i]`.
    func adopt(_ objects: [ManagedObject], where joins: (ManagedObject) -> Bool) {
        for (i, object) in objects.enumerated() where joins(object) { join(object, at: i) }
    }

    /// Makes `object`, the object of `keys[position]`, a member.
    func join(_ object: ManagedObject, at position: Int) {
        object.faultGroup = self
        object.faultPosition = Int32(truncatingIfNeeded: position)
    }

    /// The batch `object` (a member) belongs to: fetch positions cut into runs of
    /// `size`, as Core Data's batch faulting cuts them. Firing any fault loads its whole
    /// run, the siblings before it as well as after, so code that walks the results
    /// backwards or jumps into the middle reads one batch per run, as a forward walk
    /// does. The object alone if its position does not name its key.
    ///
    /// With `readingAhead`, a fault just past the last batch loaded (a walk in order)
    /// loads from itself on, twice as many as that batch held, up to eight runs: a
    /// list walked through reads a few large batches instead of one per run (each batch
    /// has its own lookups and reads), while a fault fired out of order still loads one
    /// run.
    func batch(of object: ManagedObject, size: Int, readingAhead: Bool = false) -> ArraySlice<LocatedKey> {
        let key = object.recordKey, position = Int(object.faultPosition)
        guard position < keys.count, keys[position].key == key else { return [LocatedKey(key)] }
        let size = max(1, size)
        var range = position - position % size ..< min(keys.count, position - position % size + size)
        if readingAhead, let last = lastBatch, position == last.upperBound {
            range = position ..< min(keys.count, position + min(size * Self.readAheadRuns, max(size, last.count * 2)))
        }
        if readingAhead { lastBatch = range }
        return keys[range]
    }

    /// The positions the last batch loaded (read ahead only).
    private var lastBatch: Range<Int>?
    /// The most runs one batch read ahead spans.
    static let readAheadRuns = 8
}
