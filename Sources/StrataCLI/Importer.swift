import Foundation
import Strata
import StrataImport

/// Imports JSON Lines into a store in two passes over the input.
///
/// The first pass checks every line (JSON, entity, keys, value types) and learns the
/// names (`@ref`, `@id`) lines define, so a malformed line is reported before
/// anything is written and a reference to a name defined further down is known to be
/// good. The second pass inserts objects, one transaction per batch of lines. A link
/// to a name whose line is not inserted yet waits in `pending` and is made when that
/// line's object is inserted — in the same transaction as the target, so forward
/// references work within and across batches.
///
/// A batch whose save fails validation only on relationships (a required to-one, a
/// minimum count) may be completed by lines further on — a subject's questions come
/// after it — so it is carried into the next batch instead of failing, up to
/// `carryLimit` lines; any other failure, or one that persists, fails the import with
/// nothing of the uncommitted lines written.
///
/// Memory: the names of the input (one entry per named line) and the ids of the
/// named objects inserted so far; objects themselves are released after each commit.
final class Importer {
    private let store: ObjectStore
    private let context: ObjectContext
    private let batchSize: Int
    private let carryLimit: Int
    private let decoder: JSONLineDecoder

    private struct Name {
        var line: Int
        var entity: String
    }

    private struct PendingLink {
        var source: ObjectID
        var relationship: RelationshipDescription
        var line: Int
    }

    /// Every name the input defines, with its line and entity (first pass).
    private var names: [String: Name] = [:]
    /// Ids of inserted objects that have a name, by line.
    private var created: [Int: ObjectID] = [:]
    /// Links waiting for their target's line, by the target's name.
    private var pending: [String: [PendingLink]] = [:]
    /// Objects written since the last commit → the line that wrote them, to name lines in errors.
    private var uncommitted: [String: Int] = [:]

    private(set) var objectCount = 0
    private(set) var committedObjects = 0
    private(set) var committedThroughLine = 0
    private(set) var transactions = 0
    /// Transactions written by `store.batchInsert` (the rest went through the context).
    private(set) var batchInserts = 0

    init(store: ObjectStore, batchSize: Int) {
        self.store = store
        self.context = store.newContext()
        self.batchSize = batchSize
        self.carryLimit = max(batchSize * 10, 10_000)
        self.decoder = JSONLineDecoder(model: store.model)
    }

    // MARK: Pass 1

    /// Checks every line and collects names; copies each line to `spool` if given.
    ///
    /// Lines are checked a run at a time on two threads — a `LineChecker` takes one
    /// run while this thread checks the next — and their names are collected in line
    /// order, so the first bad line (or the first duplicate name) is the one reported,
    /// as when one thread read them all.
    func scan(_ reader: LineReader, spool: InputSpool?) throws {
        let checker = LineChecker(model: store.model)
        defer { checker.stop() }
        var number = 0
        var run = RawLines()
        var handedOver = false
        while true {
            let line: ArraySlice<UInt8>?
            do {
                line = try reader.next()
            } catch {
                // A line over the limit or a read failure: lines before it come first.
                if handedOver { try collect(checker.take()) }
                try collect(CheckedLines(run, decoder: decoder))
                throw error
            }
            guard let line else { break }
            number += 1
            try spool?.append(line)
            if run.count == 0 { run.firstNumber = number }
            run.append(line)
            guard run.count >= Self.checkRun else { continue }
            if handedOver {
                // This run here, the one before it there; then both, in order.
                let mine = CheckedLines(run, decoder: decoder)
                handedOver = false
                try collect(checker.take())
                try collect(mine)
            } else {
                checker.submit(run)
                handedOver = true
            }
            run = RawLines()
        }
        if handedOver { try collect(checker.take()) }
        try collect(CheckedLines(run, decoder: decoder))
    }

    /// Lines per run of the first pass.
    private static let checkRun = 1_000

    /// Takes the names of checked lines in order; throws at the first bad line.
    private func collect(_ checked: CheckedLines) throws {
        for (number, entity, lineNames) in checked.lines {
            for name in lineNames {
                if let earlier = names[name] {
                    throw CommandFailure("line \(number): the name '\(name)' is already defined on line \(earlier.line); nothing was imported")
                }
                names[name] = Name(line: number, entity: entity)
            }
            objectCount += 1
        }
        if let (number, problem) = checked.failure {
            throw CommandFailure("line \(number): \(problem); nothing was imported")
        }
    }

    // MARK: Pass 2

    /// Inserts the objects of the file at `path`, committing a transaction every
    /// `batchSize` lines. Lines are read and decoded a batch ahead on another thread
    /// (`LineBatchReader`). A batch goes through `store.batchInsert` — no context, no
    /// managed objects — when it can (`batchInsertRows(_:)`); otherwise, or when the
    /// batch insert refuses it, through the context, line by line, as it always has,
    /// so every error and every carried batch is what it was.
    func insert(path: String, maximumLineLength: Int) throws {
        let reader = LineBatchReader(path: path, maximumLineLength: maximumLineLength, batchSize: batchSize, model: store.model)
        defer { reader.cancel() }
        var spanStart = 1
        var done = 0
        while let batch = try reader.next() {
            if !batch.lines.isEmpty, try insertBatch(batch) {
                spanStart = batch.end + 1
                done += batch.lines.count
                Terminal.progress("importing", done: done, total: objectCount)
                let isLast = batch.isLast
                reader.dispose(batch)
                if isLast { break }
                continue
            }
            for (index, (number, line)) in batch.lines.enumerated() {
                do {
                    try insertLine(line, number: number)
                } catch let problem as LineProblem {
                    context.rollback()
                    throw failure("line \(number): \(problem)", spanStart: spanStart, spanEnd: number)
                } catch let error as StrataError {
                    context.rollback()
                    throw failure("line \(number): \(error.message)", spanStart: spanStart, spanEnd: number)
                }
                done += 1
                if index == batchSize - 1 {
                    if try commit(spanStart: spanStart, through: number, more: true) {
                        spanStart = number + 1
                    }
                    Terminal.progress("importing", done: done, total: objectCount)
                }
            }
            if let (number, problem) = batch.problem {
                context.rollback()
                throw failure("line \(number): \(problem)", spanStart: spanStart, spanEnd: number)
            }
            if batch.isLast {
                if context.hasChanges {
                    _ = try commit(spanStart: spanStart, through: batch.end, more: false)
                }
                break
            }
        }
        Terminal.progress("importing", done: done, total: objectCount)
        if let (name, links) = pending.first, let link = links.first {
            // Cannot happen after a complete first pass; kept as a guard, not a trap.
            throw CommandFailure("line \(link.line): the link to '\(name)' was never made")
        }
    }

    /// Commits a whole batch with `store.batchInsert` when it can: true when it did,
    /// false when the batch must go through the context (nothing written then).
    private func insertBatch(_ batch: LineBatch) throws -> Bool {
        guard batch.problem == nil, let rows = batchInsertRows(batch) else { return false }
        let ids: [ObjectID]
        do {
            ids = try store.batchInsert(entityName: rows.entity, objects: rows.objects, relationships: rows.relationships)
        } catch is StrataError {
            // Refused whole, nothing written: the context path says why in the words
            // it always has (or carries the batch on, as it may).
            return false
        }
        for ((number, line), id) in zip(batch.lines, ids) where !line.names.isEmpty {
            created[number] = id
        }
        transactions += 1
        committedObjects += ids.count
        committedThroughLine = batch.end
        batchInserts += 1
        return true
    }

    /// The batch as `batchInsert` input, or nil when only the context can insert it: a
    /// batch of one entity with nothing pending, whose links are to-ones that name
    /// committed objects and whose inverse (if any) is a derived to-many without a
    /// maximum; an entity that requires members of a to-many is left to the context,
    /// whose validation counts them.
    private func batchInsertRows(_ batch: LineBatch) -> (entity: String, objects: [[String: Value]], relationships: [[String: ObjectID]])? {
        guard !context.hasChanges, pending.isEmpty, let objects = batch.objects, let entity = batch.lines.first?.line.entity,
              batchInsertable(entity) else { return nil }
        guard batch.hasLinks else { return (entity.name, objects, []) }
        var relationships: [[String: ObjectID]] = []
        relationships.reserveCapacity(batch.lines.count)
        for (_, line) in batch.lines {
            var links: [String: ObjectID] = [:]
            for (relationship, targets) in line.links {
                guard targets.count <= 1 else { return nil }
                guard let target = targets.first else { continue }
                guard !relationship.isToMany, linkInsertable(relationship),
                      case .object(let id)? = try? resolve(target, for: relationship, of: entity.name) else { return nil }
                links[relationship.name] = id
            }
            relationships.append(links)
        }
        return (entity.name, objects, relationships)
    }

    private var insertableEntities: [String: Bool] = [:]

    private func batchInsertable(_ entity: EntityDescription) -> Bool {
        if let known = insertableEntities[entity.name] { return known }
        let fits = !entity.relationships.contains { relationship in
            relationship.isToMany && (relationship.minimumCount ?? (relationship.isOptional ? 0 : 1)) > 0
        }
        insertableEntities[entity.name] = fits
        return fits
    }

    private func linkInsertable(_ relationship: RelationshipDescription) -> Bool {
        guard let inverseName = relationship.inverseName else { return true }
        guard let inverse = store.model.entity(named: relationship.destinationEntityName)?.relationshipsByName[inverseName] else { return false }
        return inverse.isToMany && !inverse.isOrdered && inverse.maximumCount == nil
    }

    private func insertLine(_ line: ImportLine, number: Int) throws {
        let object = try context.insert(line.entity.name)
        for (attribute, value) in line.values {
            try object.setValue(value, forKey: attribute.name)
        }
        uncommitted[object.objectID.description] = number
        if !line.names.isEmpty {
            created[number] = object.objectID
            for name in line.names {
                for link in pending.removeValue(forKey: name) ?? [] {
                    let source = try context.object(with: link.source)
                    if uncommitted[link.source.description] == nil { uncommitted[link.source.description] = link.line }
                    try connect(source, link.relationship, object)
                }
            }
        }
        for (relationship, targets) in line.links {
            for target in targets {
                switch try resolve(target, for: relationship, of: line.entity.name) {
                case .object(let id):
                    try connect(object, relationship, try context.object(with: id))
                case .later(let name):
                    pending[name, default: []].append(PendingLink(source: object.objectID, relationship: relationship, line: number))
                }
            }
        }
    }

    private func connect(_ source: ManagedObject, _ relationship: RelationshipDescription, _ target: ManagedObject) throws {
        if relationship.isToMany {
            try source.add(target, to: relationship.name)
        } else {
            try source.setObject(target, forKey: relationship.name)
        }
    }

    private enum Resolution {
        case object(ObjectID)
        case later(String)
    }

    /// A name of this import wins over an object of the store with the same URI, so
    /// that an export imported into a fresh store links its own objects.
    private func resolve(_ target: ImportLine.Target, for relationship: RelationshipDescription, of entity: String) throws(LineProblem) -> Resolution {
        let label = "\(entity).\(relationship.name)"
        let entityName: String
        let resolution: Resolution
        if let name = names[target.name] {
            entityName = name.entity
            resolution = created[name.line].map(Resolution.object) ?? .later(target.name)
        } else if case .id(let uri) = target {
            let id = store.objectID(forURI: uri)
            let exists: Bool
            do { exists = try id.map { try store.records.contains($0.key) } ?? false } catch {
                throw LineProblem("\(label): \(target) could not be looked up: \(error)")
            }
            guard let id, exists else {
                throw LineProblem("\(label): \(target) names no object of this import or of the store")
            }
            entityName = id.entityName
            resolution = .object(id)
        } else {
            throw LineProblem("\(label): \(target) is not defined by any line of this import")
        }
        guard store.model.entity(named: entityName)?.isKind(of: relationship.destinationEntityName) ?? false else {
            throw LineProblem("\(label) leads to \(relationship.destinationEntityName), but \(target) is a \(entityName)")
        }
        return resolution
    }

    /// Saves the span; false when a relationship-only validation failure carries it on.
    private func commit(spanStart: Int, through end: Int, more: Bool) throws -> Bool {
        do {
            try context.save()
        } catch let error as StrataError where error.code == .validationFailed {
            if more, end - spanStart + 1 < carryLimit, onlyRelationshipFailures(error) { return false }
            context.rollback()
            throw failure(annotate(error), spanStart: spanStart, spanEnd: end)
        } catch let error as StrataError {
            context.rollback()
            throw failure(error.description, spanStart: spanStart, spanEnd: end)
        }
        transactions += 1
        committedObjects += uncommitted.count
        committedThroughLine = end
        uncommitted = [:]
        // The context forgets the saved objects, so memory does not grow with the input.
        context.reset()
        return true
    }

    private func failure(_ reason: String, spanStart: Int, spanEnd: Int) -> CommandFailure {
        let before = committedThroughLine == 0
            ? "nothing was committed before it"
            : "lines 1–\(committedThroughLine) (\(committedObjects) objects) were committed before it and stay"
        let span = spanStart == spanEnd ? "line \(spanStart)" : "lines \(spanStart)–\(spanEnd)"
        return CommandFailure("import failed: \(reason)\nnothing of \(span) was committed; \(before)")
    }

    /// The library's validation failures, each led by the line of its object.
    private func annotate(_ error: StrataError) -> String {
        let failures = (error.context["objects"] ?? error.message).split(separator: "\n")
        let lines = failures.map { failure -> String in
            let object = failure.prefix { $0 != "." && $0 != ":" }
            return uncommitted[String(object)].map { "line \($0): \(failure)" } ?? String(failure)
        }
        return "\(failures.count) validation failure(s) at save:\n  " + lines.joined(separator: "\n  ")
    }

    /// Whether every failure is about a relationship, which later lines may still set.
    private func onlyRelationshipFailures(_ error: StrataError) -> Bool {
        guard let list = error.context["objects"] else { return false }
        for failure in list.split(separator: "\n") {
            guard let colon = failure.firstRange(of: ": ") else { return false }
            let head = failure[..<colon.lowerBound]
            guard let dot = head.firstIndex(of: "."), let slash = head.firstIndex(of: "/") else { return false }
            let entity = String(head[..<slash])
            let property = String(head[head.index(after: dot)...])
            guard store.model.entity(named: entity)?.relationshipsByName[property] != nil else { return false }
        }
        return true
    }

    // MARK: Lines

    static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
    }
}
