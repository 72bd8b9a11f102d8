import Foundation

/// A run of the catalogue that survives its own findings: a trap ends the process, so
/// a long run writes each case's start and outcome to a journal file, one JSON line
/// each, and the next run over the same journal skips the cases it holds and records
/// the one that was under way when the process died as a trap (or a hang, when the
/// watch stopped it). `Fuzz/run-damage.sh` reruns the test until a run completes.
final class DamageJournal: @unchecked Sendable {
    struct Line: Codable {
        var event: String
        var key: String
        var finding: DamageFinding?
    }

    private let handle: FileHandle
    /// The outcomes of the cases the journal holds, by key.
    private(set) var done: [String: DamageFinding] = [:]
    /// The key of the case under way, written before it runs.
    private var current: String?

    init?(path: String) {
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forUpdatingAtPath: path) else { return nil }
        self.handle = handle
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        var begun: (key: String, hang: Bool)?
        for line in text.split(separator: "\n") {
            guard let entry = try? JSONDecoder().decode(Line.self, from: Data(line.utf8)) else { continue }
            switch entry.event {
            case "begin": begun = (entry.key, false)
            case "hang": begun = (entry.key, true)
            case "end":
                if let finding = entry.finding { done[entry.key] = finding }
                begun = nil
            default: break
            }
        }
        // The case under way when the last run stopped: it trapped or hung.
        if let begun, done[begun.key] == nil {
            let parts = begun.key.split(separator: "\t", maxSplits: 1).map(String.init)
            let finding = DamageFinding(category: parts.first ?? "", edit: parts.count > 1 ? parts[1] : begun.key,
                                        outcome: begun.hang ? .hang : .trap, differences: [], differenceCount: 0)
            done[begun.key] = finding
            append(Line(event: "end", key: begun.key, finding: finding))
        }
    }

    static func key(_ damage: DamageCase) -> String { "\(damage.category)\t\(damage.description)" }

    func begin(_ key: String) {
        current = key
        append(Line(event: "begin", key: key, finding: nil))
    }

    func end(_ key: String, _ finding: DamageFinding) {
        current = nil
        done[key] = finding
        append(Line(event: "end", key: key, finding: finding))
    }

    /// Notes that the case under way hangs (the watch stops the process next).
    func hang() {
        if let current { append(Line(event: "hang", key: current, finding: nil)) }
    }

    private func append(_ line: Line) {
        guard let data = try? JSONEncoder().encode(line) else { return }
        handle.seekToEndOfFile()
        handle.write(data + Data("\n".utf8))
    }
}
