import Foundation
import StrataLog

extension InPlaceMigration {
    /// Terms a stage adds to the records there are: an existing attribute that becomes
    /// indexed or unique, a new indexed attribute whose default the objects read, or a
    /// new compound uniqueness constraint (`fields` its attributes).
    struct IndexBuild {
        let entity: String
        let fields: [String]
        let termIndex: UInt32
        let compound: Bool
    }

    /// Builds new indexes in place, before the stage's metadata swap, in one pass over
    /// the entities' records: each record is read once; its new terms are computed, the
    /// values of each new rule in `checking` handed to a ``UniquenessCheck``, and the
    /// record with its new terms (same value and blobs, its layout unchanged) written
    /// as part of one transaction committed in chunks (`commit(chunks:)`, which gives
    /// it a segment and sorts its terms as packed runs), visible whole or not at all.
    /// A duplicate leaves the store's records, model and metadata as they were.
    ///
    /// On the segment log the pass is the commit's producer: each chunk is read and rebuilt
    /// while the one before it is written on the commit's second thread, and no record is
    /// read twice. The check's verdict comes after the last chunk, while the commit writes
    /// the index file, so a duplicate fails the commit before its commit frame (the active
    /// segment may have been sealed to begin the build's own). A store of an older format,
    /// which any write upgrades, and another record store, whose commit could not read
    /// beside it, get the records through a ``RecordSpool`` outside the store instead,
    /// committed once the check has passed: there, a duplicate writes nothing at all.
    ///
    /// The new attribute numbers are first recorded as retired in the store's own
    /// metadata, so that a crash between the commit and the metadata swap leaves the
    /// old model with terms under numbers no field will ever be given; the next attempt
    /// builds again, replacing them. On the segment log the reservation comes before
    /// the check has passed: a pass that stops (a duplicate, a failed read) puts the
    /// metadata back when it can, and one that a crash stops leaves the numbers retired,
    /// which costs nothing but the numbers. (A compound constraint's number is its
    /// position after the entity's older constraints, which no field can take.)
    ///
    /// Only as a plan's first change to the live store (or on a staging store): the
    /// reservation is written over the store's own metadata, not over changes an earlier
    /// in-place stage holds in memory.
    static func buildIndexes(_ builds: [IndexBuild], checking rules: [UniquenessScan.Rule] = [], schema: StoreSchema,
                             sourceTable: LayoutTable, records: any RecordStore, metadata: [String: [UInt8]],
                             scratch: UniquenessScan.Scratch, batchSize: Int = 1024) throws {
        guard metadata == records.metadata else {
            throw Refusal(description: "an index is built in place only by the first change of a plan")
        }
        var entities: [EntityTermBuild] = []
        for (entity, entityBuilds) in Dictionary(grouping: builds, by: \.entity).sorted(by: { $0.key < $1.key }) {
            guard let shape = schema.shapes[entity] else { continue }
            entities.append(EntityTermBuild(shape: shape, builds: entityBuilds, rules: rules))
        }
        let fieldIndexes = builds.filter { !$0.compound }.map(\.termIndex)
        let pass = TermBuildPass(entities: entities, rules: rules, schema: schema, records: records, scratch: scratch)
        // Chunks of at most 1,024 records: two or three are in flight at once, and the
        // commit's memory is theirs and its sorters' batches, not the store's.
        let chunkSize = max(1, min(batchSize, 1024))
        guard let log = records as? LogStore else {
            return try pass.spooled(reserving: fieldIndexes, in: sourceTable, chunkSize: chunkSize)
        }
        try log.withBlockCacheLimited(to: scratch.passCacheBytes) {
            if log.formatVersion >= Format.version {
                try pass.streamed(into: log, reserving: fieldIndexes, in: sourceTable, chunkSize: chunkSize)
            } else {
                try pass.spooled(reserving: fieldIndexes, in: sourceTable, chunkSize: chunkSize)
            }
        }
    }

    /// Writes `termIndexes` as retired into the layout table of the store's own
    /// metadata (``buildIndexes(_:checking:schema:sourceTable:records:metadata:scratch:batchSize:)``);
    /// returns the metadata it replaced, nil when there was nothing to reserve.
    static func reserve(_ termIndexes: [UInt32], in sourceTable: LayoutTable, records: any RecordStore) throws -> [String: [UInt8]]? {
        guard !termIndexes.isEmpty else { return nil }
        var reserved = sourceTable
        reserved.retiredTermIndexes = Array(Set((reserved.retiredTermIndexes ?? []) + termIndexes)).sorted()
        let before = records.metadata
        var onDisk = before
        onDisk[LayoutTable.metadataKey] = try reserved.encoded()
        try records.setMetadata(MetadataDigest.sealed(onDisk))
        return before
    }

    /// A scan that reads each record once: the segment log's keeps no frame in the
    /// block cache, which would otherwise fill with the whole entity.
    static func scanOnce(_ records: any RecordStore, _ range: Range<RecordKey>, _ body: ([Record]) throws -> Void) throws {
        if let log = records as? LogStore {
            try log.scan(range, batchSize: 1024, keepingFrames: false, body)
        } else {
            try records.scan(range, batchSize: 1024, body)
        }
    }

    /// Whether a field holds −0.0 (a double or a date): equal to 0.0, with another term.
    static func isNegativeZero(_ field: FieldValue) -> Bool {
        switch field {
        case .value(.double(let d)): d == 0 && d.sign == .minus
        case .value(.date(let d)): d.timeIntervalSinceReferenceDate == 0 && d.timeIntervalSinceReferenceDate.sign == .minus
        default: false
        }
    }
}

/// One entity's share of an in-place index build: the fields its new terms are made
/// of, the rules checked on them, and a record's terms with the new ones put on.
struct EntityTermBuild {
    let range: Range<RecordKey>
    private let layout: StoreSchema.EntityLayout
    /// The term numbers built: a record's older terms under them are replaced.
    private let built: [UInt32]
    private let numbered: [(numbers: [Int], build: InPlaceMigration.IndexBuild)]
    /// Each rule (a position in the pass's rules) checked on the terms of a build (a
    /// position in `numbered`).
    private let bound: [(rule: Int, build: Int)]
    /// The fields the builds read are read in place; a record the reader cannot read
    /// is decoded whole.
    private var reader: BuildFieldReader
    /// The built values, kept from one record to the next rather than allocated for
    /// each record of the pass.
    private var values: [[UInt8]?] = []

    init(shape: StoreSchema.EntityShape, builds: [InPlaceMigration.IndexBuild], rules: [UniquenessScan.Rule]) {
        let layout = shape.layout
        self.layout = layout
        range = StoreSchema.range(tag: layout.tag)
        built = builds.map(\.termIndex)
        let numbered = builds.compactMap { build -> (numbers: [Int], build: InPlaceMigration.IndexBuild)? in
            let numbers = build.fields.compactMap { layout.fieldNumbers[$0] }
            return numbers.count == build.fields.count ? (numbers, build) : nil
        }
        self.numbered = numbered
        // Each rule checked in the pass with the build of its terms: the check sorts
        // the term just built (the values' own unless a zero is negative, whose term
        // differs from an equal positive zero's).
        bound = rules.indices.compactMap { rule -> (rule: Int, build: Int)? in
            guard rules[rule].constraint.scopeTags.contains(layout.tag),
                  let build = numbered.firstIndex(where: { $0.build.termIndex == rules[rule].constraint.termIndex }) else { return nil }
            return (rule, build)
        }
        reader = BuildFieldReader(wanted: numbered.flatMap(\.numbers), shape: shape)
        values.reserveCapacity(numbered.count)
    }

    /// `record`'s terms with the built ones in place of any it had under their numbers,
    /// nil when they are its terms already; its values go to `check` for each rule
    /// bound to a build.
    mutating func terms(of record: Record, schema: StoreSchema, rules: [UniquenessScan.Rule], records: any RecordStore,
                        check: inout UniquenessCheck) throws -> [IndexTerm]? {
        let object = try reader.load(record) ? nil : try schema.decode(record)
        func field(_ number: Int) -> FieldValue {
            guard let object else { return reader.field(number) }
            return number < object.fields.count ? object.fields[number] : .null
        }
        // Sized once for the terms kept and those built.
        var terms: [IndexTerm] = []
        terms.reserveCapacity(record.terms.count + numbered.count)
        for term in record.terms where !built.contains(term.index) { terms.append(term) }
        values.removeAll(keepingCapacity: true)
        for (numbers, build) in numbered {
            let value: [UInt8]?
            if build.compound {
                value = try ObjectCodec.compoundTerm(numbers.map(field), numbers: Array(numbers.indices), blobBytes: { try records.readBlob($0) })
            } else {
                value = try ObjectCodec.termValue(field(numbers[0]), blobBytes: { try records.readBlob($0) })
            }
            values.append(value)
            if let value { terms.append(IndexTerm(index: build.termIndex, value: value)) }
        }
        for (rule, build) in bound {
            // No term: a value is null (or missing), and nulls never collide.
            guard let term = values[build] else { continue }
            if numbered[build].numbers.contains(where: { InPlaceMigration.isNegativeZero(field($0)) }) {
                guard let values = try ObjectStore.storedValues(of: try object ?? schema.decode(record), layout: layout,
                                                                attributes: rules[rule].constraint.attributes,
                                                                readBlob: { try records.readBlob($0) }) else { continue }
                try check.add(rule: rule, values: values, key: record.key)
            } else {
                try check.add(rule: rule, term: term, key: record.key)
            }
        }
        return terms == record.terms ? nil : terms
    }
}

/// The pass of an in-place index build over its entities' records, and the commit of
/// the records it rebuilds (``InPlaceMigration/buildIndexes(_:checking:schema:sourceTable:records:metadata:scratch:batchSize:)``).
struct TermBuildPass {
    let entities: [EntityTermBuild]
    let rules: [UniquenessScan.Rule]
    let schema: StoreSchema
    let records: any RecordStore
    let scratch: UniquenessScan.Scratch

    /// The segment log's way: the pass feeds the commit chunk by chunk, and the check
    /// ends after the last chunk, before the commit frame. The first chunk is read
    /// before the commit starts, so that a pass that changes no record commits
    /// nothing; reading it outside the commit's writer lock is safe because the
    /// migration has the store to itself (it runs at open, before the store is handed
    /// out): nothing commits between that read and the commit.
    func streamed(into log: LogStore, reserving termIndexes: [UInt32], in sourceTable: LayoutTable, chunkSize: Int) throws {
        var reading = Reading(pass: self, log: log, chunkSize: chunkSize)
        defer { reading.check.discard() }
        var next = try reading.nextChunk()
        guard next != nil else {
            try reading.check.finish()
            return
        }
        let replaced = try InPlaceMigration.reserve(termIndexes, in: sourceTable, records: log)
        var passStopped = false
        do {
            // The check's verdict (its merge) comes while the commit writes the
            // transaction's index file, before the commit frame.
            try log.commit(chunks: { batch, _ in
                for record in next ?? [] { batch.put(record.key, value: record.value, blobs: record.blobs, terms: record.terms) }
                do {
                    next = try reading.nextChunk()
                    // The check's merge runs while the commit writes its index file:
                    // the memory of its last terms is not held through both.
                    if next == nil { try reading.check.setAside() }
                } catch {
                    passStopped = true
                    throw error
                }
                return next != nil
            }, checking: {
                do {
                    try reading.check.finish()
                } catch {
                    passStopped = true
                    throw error
                }
            })
        } catch {
            // The pass stopped (a duplicate, a read or scratch failure): the commit
            // never reached its commit frame, so the numbers need no reserving, and
            // the metadata is put back as it was. (A commit that fails on its own keeps
            // the reservation: it costs only the numbers it holds.)
            if passStopped, let replaced {
                do {
                    try log.setMetadata(replaced)
                } catch let restoring {
                    log.logger.warning("an index build that stopped could not put back its reserved term numbers; they stay retired",
                                       metadata: ["path": "\(log.path)", "error": "\(restoring)"])
                }
            }
            throw error
        }
    }

    /// Another record store's way: the pass spools the rebuilt records outside the
    /// store, the check runs, and only then is anything written.
    func spooled(reserving termIndexes: [UInt32], in sourceTable: LayoutTable, chunkSize: Int) throws {
        var check = UniquenessCheck(rules: rules, schema: schema, records: records, scratch: scratch)
        defer { check.discard() }
        let spool = try RecordSpool(path: scratch.directory + "/strata-index-build-\(UUID().uuidString)", fileSystem: scratch.fileSystem)
        defer { spool.remove() }
        for var entity in entities {
            try InPlaceMigration.scanOnce(records, entity.range) { batch in
                for record in batch {
                    guard let terms = try entity.terms(of: record, schema: schema, rules: rules, records: records, check: &check) else { continue }
                    try spool.append(key: record.key, value: record.value, blobs: record.blobs, terms: terms)
                }
            }
        }
        try check.finish()
        guard spool.count > 0 else { return }
        try spool.finishWriting()
        _ = try InPlaceMigration.reserve(termIndexes, in: sourceTable, records: records)
        try records.commit(chunks: { batch, _ in
            try spool.read(into: &batch, limit: chunkSize)
            return spool.hasMore
        })
    }

    /// The pass read a chunk at a time: the rebuilt records of the next scanned
    /// batches, the check fed as they go by.
    private struct Reading {
        var entities: [EntityTermBuild]
        let pass: TermBuildPass
        let log: LogStore
        let chunkSize: Int
        var check: UniquenessCheck
        var position = 0
        var after: RecordKey?

        init(pass: TermBuildPass, log: LogStore, chunkSize: Int) {
            self.pass = pass
            self.log = log
            self.chunkSize = chunkSize
            entities = pass.entities
            check = UniquenessCheck(rules: pass.rules, schema: pass.schema, records: log, scratch: pass.scratch)
        }

        /// The next records that take new terms (at least one), or nil once every
        /// entity is read (the check's `finish` is then the caller's).
        /// - Throws: what reads and the check's scratch throw.
        mutating func nextChunk() throws -> [Record]? {
            var chunk: [Record] = []
            while chunk.isEmpty {
                guard position < entities.count else { return nil }
                guard let batch = try log.scanBatch(entities[position].range, after: &after, batchSize: chunkSize, keepingFrames: false) else {
                    position += 1
                    after = nil
                    continue
                }
                chunk.reserveCapacity(batch.count)
                for var record in batch {
                    guard let terms = try entities[position].terms(of: record, schema: pass.schema, rules: pass.rules, records: log,
                                                                   check: &check) else { continue }
                    record.terms = terms
                    chunk.append(record)
                }
            }
            return chunk
        }
    }
}
