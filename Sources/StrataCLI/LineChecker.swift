import Foundation
import Strata
import StrataImport

/// Lines of an import's first pass, copied out of the reader's buffer so that another
/// thread can check them.
struct RawLines: Sendable {
    var bytes: [UInt8] = []
    /// Where each line ends in `bytes` (the next one starts there).
    var ends: [Int] = []
    /// The number of the first line.
    var firstNumber = 1

    var count: Int { ends.count }

    mutating func append(_ line: ArraySlice<UInt8>) {
        bytes.append(contentsOf: line)
        ends.append(bytes.count)
    }

    func line(_ index: Int) -> ArraySlice<UInt8> {
        bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]]
    }
}

/// What checking a run of lines found: each object line's entity and names, and the
/// first line that failed, if any (lines after it are not checked).
struct CheckedLines: Sendable {
    var lines: [(number: Int, entity: String, names: [String])] = []
    var failure: (number: Int, problem: LineProblem)?

    /// Checks `raw` with `decoder`.
    init(_ raw: RawLines, decoder: JSONLineDecoder) {
        lines.reserveCapacity(raw.count)
        for index in 0..<raw.count {
            let line = raw.line(index)
            guard !Importer.isBlank(line) else { continue }
            let number = raw.firstNumber + index
            do {
                let checked = try decoder.check(line)
                lines.append((number, checked.entityName, checked.names))
            } catch {
                failure = (number, error)
                return
            }
        }
    }
}

/// A second thread for the first pass: while the importer checks one run of lines,
/// this checks the run before it, so the checking takes both cores of a small machine.
/// One run at a time is in its hands.
final class LineChecker: @unchecked Sendable {
    private let condition = NSCondition()
    private var submitted: RawLines?
    private var result: CheckedLines?
    private var stopping = false
    private var running = true

    init(model: ObjectModel) {
        let thread = Thread { [self] in self.work(decoder: JSONLineDecoder(model: model)) }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Hands a run over; the previous one's result must have been taken.
    func submit(_ raw: RawLines) {
        condition.lock()
        submitted = raw
        condition.broadcast()
        condition.unlock()
    }

    /// The result of the run handed over last, once it is checked.
    func take() -> CheckedLines {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let taken = result {
                result = nil
                return taken
            }
            condition.wait()
        }
    }

    /// Ends the thread (after the run in its hands, if any).
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func work(decoder: JSONLineDecoder) {
        while true {
            condition.lock()
            while submitted == nil && !stopping { condition.wait() }
            guard let raw = submitted else {
                running = false
                condition.broadcast()
                condition.unlock()
                return
            }
            submitted = nil
            condition.unlock()
            let checked = CheckedLines(raw, decoder: decoder)
            condition.lock()
            result = checked
            condition.broadcast()
            condition.unlock()
        }
    }
}
