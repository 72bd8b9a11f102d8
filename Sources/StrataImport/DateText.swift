import Foundation

/// Dates in JSON Lines: ISO 8601 in UTC, with a fraction of a second (up to
/// microseconds) only when the date has one.
///
/// Why microseconds: a `Date` is a `Double` of seconds, whose spacing near today is
/// about 0.2 µs, so six digits survive export → import → export unchanged while
/// nine would print noise. `ISO8601DateFormatter` itself keeps milliseconds only, so
/// the fraction is written and read here.
package final class DateText {
    package init() {}

    private let formatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter
    }()

    /// `2024-05-01T12:00:00Z`, or `2024-05-01T12:00:00.25Z` when there is a fraction.
    package func string(from date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        var whole = seconds.rounded(.down)
        var micros = ((seconds - whole) * 1_000_000).rounded()
        if micros >= 1_000_000 {
            whole += 1
            micros = 0
        }
        let base = formatter.string(from: Date(timeIntervalSince1970: whole))
        guard micros > 0, base.hasSuffix("Z") else { return base }
        var fraction = String(Int(micros))
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return base.dropLast() + "." + fraction + "Z"
    }

    /// Reads an ISO 8601 date with any number of fraction digits and a `Z` or
    /// `±hh:mm` zone; nil when `text` is not one.
    package func date(from text: String) -> Date? {
        guard let t = text.firstIndex(of: "T"), let dot = text[t...].firstIndex(of: ".") else {
            return formatter.date(from: text)
        }
        let digitsStart = text.index(after: dot)
        let digitsEnd = text[digitsStart...].firstIndex { !$0.isASCII || !$0.isNumber } ?? text.endIndex
        let digits = text[digitsStart..<digitsEnd]
        guard !digits.isEmpty, let fraction = Double("0." + digits),
              let base = formatter.date(from: String(text[..<dot]) + String(text[digitsEnd...])) else { return nil }
        return Date(timeIntervalSince1970: base.timeIntervalSince1970 + fraction)
    }
}
