import Foundation
import Strata
import StrataImport

/// A batch of decoded lines of an import's second pass.
struct LineBatch: Sendable {
    /// The non-blank lines, with their line numbers.
    var lines: [(number: Int, line: ImportLine)] = []
    /// The last line number the batch covers: its last line's, or for the last batch
    /// the input's last line (blank lines after the last object included).
    var end = 0
    /// Whether this is the input's last batch.
    var isLast = false
    /// A line that failed to decode after `lines` (the input changed since the first
    /// pass): the import fails there, as it would have on reaching it.
    var problem: (number: Int, problem: LineProblem)?
    /// The lines' attribute values as `store.batchInsert` takes them, when every line
    /// is of one entity (made on the reader's thread, off the writer's).
    var objects: [[String: Value]]?
    /// Whether any line has a relationship target.
    var hasLinks = false

    /// Fills `objects` and `hasLinks`.
    mutating func prepareRows() {
        guard let entity = lines.first?.line.entity.name else { return }
        var rows: [[String: Value]] = []
        rows.reserveCapacity(lines.count)
        for (_, line) in lines {
            guard line.entity.name == entity else { return }
            var values: [String: Value] = Dictionary(minimumCapacity: line.values.count)
            for (attribute, value) in line.values { values[attribute.name] = value }
            rows.append(values)
            if !line.links.isEmpty { hasLinks = true }
        }
        objects = rows
    }
}

/// Reads and decodes the second pass on a thread of its own, a batch ahead of the
/// writer: while one batch is checked and committed, the next is being parsed (two
/// cores, two stages). At most `capacity` decoded batches wait, so memory follows the
/// batch size, not the input.
final class LineBatchReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var ready: [Result<LineBatch, any Error>] = []
    private var cancelled = false
    private var finished = false
    private let capacity = 2
    /// Batches the writer is done with, released on the reader's thread: freeing a
    /// thousand decoded lines is work the writer need not do.
    private var spent: [LineBatch] = []

    /// Starts reading `path` with lines of at most `maximumLineLength` bytes,
    /// `batchSize` non-blank lines a batch, decoded against `model`.
    init(path: String, maximumLineLength: Int, batchSize: Int, model: ObjectModel) {
        let thread = Thread { [self] in
            self.produce(path: path, maximumLineLength: maximumLineLength, batchSize: batchSize, model: model)
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The next batch; after the one marked `isLast`, nil.
    ///
    /// - Throws: what reading the input threw (a line over the limit, a read failure).
    func next() throws -> LineBatch? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && !finished { condition.wait() }
        guard !ready.isEmpty else { return nil }
        let result = ready.removeFirst()
        condition.broadcast()
        return try result.get()
    }

    /// Hands a batch back to be released on the reader's thread.
    func dispose(_ batch: consuming LineBatch) {
        condition.lock()
        spent.append(batch)
        condition.unlock()
    }

    /// Stops the reader (the writer failed) and waits for its thread to let go.
    func cancel() {
        condition.lock()
        cancelled = true
        ready.removeAll()
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func produce(path: String, maximumLineLength: Int, batchSize: Int, model: ObjectModel) {
        defer {
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
        }
        do {
            let reader = try LineReader(path: path, maximumLineLength: maximumLineLength)
            let decoder = JSONLineDecoder(model: model)
            var batch = LineBatch()
            batch.lines.reserveCapacity(batchSize)
            var number = 0
            while let line = try reader.next() {
                number += 1
                guard !Importer.isBlank(line) else { continue }
                do {
                    batch.lines.append((number, try decoder.decode(line)))
                } catch {
                    batch.problem = (number, error)
                    batch.end = number
                    batch.isLast = true
                    _ = put(.success(batch))
                    return
                }
                if batch.lines.count >= batchSize {
                    batch.end = number
                    batch.prepareRows()
                    guard put(.success(batch)) else { return }
                    batch = LineBatch()
                    batch.lines.reserveCapacity(batchSize)
                }
            }
            batch.end = number
            batch.isLast = true
            batch.prepareRows()
            _ = put(.success(batch))
        } catch {
            _ = put(.failure(error))
        }
    }

    /// Hands a batch over, waiting while `capacity` are waiting; false once cancelled.
    private func put(_ item: Result<LineBatch, any Error>) -> Bool {
        var released: [LineBatch] = []
        defer { released.removeAll() }
        condition.lock()
        defer { condition.unlock() }
        swap(&released, &spent)
        while ready.count >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        ready.append(item)
        condition.broadcast()
        return true
    }
}
