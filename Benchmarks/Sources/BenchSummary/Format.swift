import Foundation

enum Format {
    static func number(_ v: Double) -> String {
        if v >= 100 {
            let formatter = NumberFormatter()
            formatter.numberStyle = .decimal
            formatter.maximumFractionDigits = 0
            formatter.groupingSeparator = ","
            return formatter.string(from: NSNumber(value: v.rounded())) ?? "\(Int(v))"
        }
        return String(format: v >= 10 ? "%.1f" : "%.2f", v)
    }

    static func ratio(_ v: Double) -> String { String(format: "%.2f", v) }

    static func speed(_ v: Double) -> String {
        v >= 1 ? String(format: "%.1f× faster", v) : String(format: "%.1f× slower", 1 / v)
    }

    static func mebibytes(_ bytes: Int?) -> String {
        guard let bytes else { return "–" }
        return String(format: "%.1f", Double(bytes) / 1_048_576)
    }

    /// A Markdown table, columns padded so that it reads in a terminal too.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { c in all.map { $0[c].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "| " + cells.enumerated().map { c, s in
                c == 0 ? s.padding(toLength: widths[c], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[c] - s.count) + s
            }.joined(separator: " | ") + " |"
        }
        let rule = "|" + widths.enumerated().map { c, w in c == 0 ? String(repeating: "-", count: w + 2) : String(repeating: "-", count: w + 1) + ":" }.joined(separator: "|") + "|"
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }
}
