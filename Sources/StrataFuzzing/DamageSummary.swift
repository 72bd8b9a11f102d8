/// How a damaged store answered the oracle's reads, worst last.
public enum DamageOutcome: Int, Sendable, Codable, CaseIterable, Comparable, CustomStringConvertible {
    /// Opened, and every read answered as the untouched store does.
    case equal
    /// Open threw a `StrataError`.
    case refusedAtOpen
    /// Opened; some reads threw a `StrataError`, every other answered as the untouched store.
    case refusedOnRead
    /// Open or a read threw something other than a `StrataError`.
    case foreignError
    /// A read answered differently, and `verify` reports the store unsound.
    case wrongVerifyReports
    /// A read answered differently, and `verify` finds the store sound.
    case silentWrong
    /// The process trapped during the case (seen by the next run over a journal).
    case trap
    /// The case did not finish within `DamageWatch.stopSeconds` (the watch stopped it).
    case hang

    public var isFine: Bool { self <= .refusedOnRead }

    public static func < (a: DamageOutcome, b: DamageOutcome) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .equal: "equal"
        case .refusedAtOpen: "refused"
        case .refusedOnRead: "refused on read"
        case .foreignError: "non-StrataError"
        case .wrongVerifyReports: "wrong, verify reports"
        case .silentWrong: "SILENT WRONG"
        case .trap: "TRAP"
        case .hang: "HANG"
        }
    }
}

/// A case that was not fine: what was edited, and what read wrong.
public struct DamageFinding: Sendable, Codable, CustomStringConvertible {
    public var category: String
    /// The edit: "segment 3 frame@1234 record[2] (Employee 2:5) sequence 41 → 42 (+1)".
    public var edit: String
    public var outcome: DamageOutcome
    /// The reads that differed ("fetch 2:5.salary: 250.5 → 251.5"), the first few.
    public var differences: [String]
    /// How many reads differed in all.
    public var differenceCount: Int
    /// What `verify` reported (its first problem), for a wrong case.
    public var verify: String?
    /// The reads the store refused beside the wrong ones (the first two), and how many:
    /// an index query that answers nothing while the object's own reads refuse is a
    /// candidate dropped, not a value changed.
    public var refusals: [String] = []
    public var refusalCount = 0

    public var description: String {
        var text = "[\(outcome)] \(edit)"
        for difference in differences { text += "\n      \(difference)" }
        if differenceCount > differences.count { text += "\n      … \(differenceCount - differences.count) more reads differ" }
        if refusalCount > 0 {
            text += "\n      \(refusalCount) reads refused, as " + refusals.joined(separator: "; ")
        }
        if let verify { text += "\n      verify: \(verify)" }
        return text
    }
}

/// What a run of the damage catalogue found: per category, how many cases ended how;
/// every case that was not fine; and any problem of the harness itself (a template that
/// did not build, a baseline that refused a read, a control case that read wrong).
public struct DamageSummary: Sendable, CustomStringConvertible {
    public var cases = 0
    /// Category → outcome → cases.
    public var counts: [String: [DamageOutcome: Int]] = [:]
    public var findings: [DamageFinding] = []
    public var harnessProblems: [String] = []

    public var silentWrong: [DamageFinding] { findings.filter { $0.outcome == .silentWrong } }

    /// Findings whose edit names none of `allowed` (substrings of the field names).
    public func findings(notMatching allowed: [String]) -> [DamageFinding] {
        findings.filter { finding in !allowed.contains { finding.category.contains($0) || finding.edit.contains($0) } }
    }

    mutating func add(_ category: String, _ outcome: DamageOutcome) {
        cases += 1
        counts[category, default: [:]][outcome, default: 0] += 1
    }

    /// The table of every category (or only those with a finding), then the findings
    /// grouped by category.
    public func table(onlyFindings: Bool = false) -> String {
        let columns: [DamageOutcome] = DamageOutcome.allCases
        let width = max(40, (counts.keys.map(\.count).max() ?? 0) + 2)
        func pad(_ text: String, _ n: Int) -> String { text.count >= n ? text : text + String(repeating: " ", count: n - text.count) }
        func left(_ text: String, _ n: Int) -> String { text.count >= n ? text : String(repeating: " ", count: n - text.count) + text }
        var lines = [pad("category", width) + left("cases", 7) + columns.map { left($0.description, max(8, $0.description.count + 2)) }.joined()]
        var totals: [DamageOutcome: Int] = [:]
        for category in counts.keys.sorted() {
            let row = counts[category] ?? [:]
            for (outcome, n) in row { totals[outcome, default: 0] += n }
            if onlyFindings, !row.keys.contains(where: { !$0.isFine }) { continue }
            let total = row.values.reduce(0, +)
            lines.append(pad(category, width) + left("\(total)", 7) + columns.map { left(row[$0].map(String.init) ?? "·", max(8, $0.description.count + 2)) }.joined())
        }
        lines.append(pad("total", width) + left("\(cases)", 7) + columns.map { left("\(totals[$0] ?? 0)", max(8, $0.description.count + 2)) }.joined())
        return lines.joined(separator: "\n")
    }

    public var description: String {
        var text = "damage catalogue: \(cases) cases, \(findings.count) not fine (\(silentWrong.count) silent wrong)\n"
        for problem in harnessProblems { text += "HARNESS PROBLEM: \(problem)\n" }
        text += table() + "\n"
        var byCategory: [String: [DamageFinding]] = [:]
        for finding in findings { byCategory[finding.category, default: []].append(finding) }
        for category in byCategory.keys.sorted() {
            let list = byCategory[category] ?? []
            text += "\n== \(category): \(list.count) not fine\n"
            for finding in list { text += "  \(finding)\n" }
        }
        return text
    }
}
