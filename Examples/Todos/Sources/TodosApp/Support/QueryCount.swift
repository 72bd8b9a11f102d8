import Hummingbird

extension Request {
    /// TechEmpower's `queries` parameter: clamped to 1…500, and 1 when it is missing or
    /// not a number (the benchmark's rules, not a 400). Digits past `Int`'s range are
    /// still an integer greater than 500.
    var queryCount: Int {
        guard let text = uri.queryParameters["queries"], !text.isEmpty else { return 1 }
        guard let count = Int(text) else {
            let digits = text.first == "+" ? text.dropFirst() : text[...]
            return !digits.isEmpty && digits.allSatisfy(\.isASCIIDigit) ? 500 : 1
        }
        return min(max(count, 1), 500)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
