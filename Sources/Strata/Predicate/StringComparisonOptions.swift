/// How strings are folded before comparing: the `[c]`, `[d]` and `[cd]` modifiers.
///
/// ```swift
/// try Predicate(format: "name ==[cd] 'Zoe'")   // matches "zoë"
/// ```
public struct StringComparisonOptions: OptionSet, Sendable, Hashable {
    /// The option bits.
    public let rawValue: UInt8
    /// Creates options from their raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `[c]`: compare without regard to case.
    public static let caseInsensitive = Self(rawValue: 1 << 0)
    /// `[d]`: compare without regard to diacritics (`é` equals `e`).
    public static let diacriticInsensitive = Self(rawValue: 1 << 1)

    /// The modifier as written after an operator: `""`, `"[c]"`, `"[d]"` or `"[cd]"`.
    package var modifier: String {
        var letters = ""
        if contains(.caseInsensitive) { letters += "c" }
        if contains(.diacriticInsensitive) { letters += "d" }
        return letters.isEmpty ? "" : "[\(letters)]"
    }
}

extension StringComparisonOptions {
    /// Options from the two flags the builder methods take.
    init(caseInsensitive: Bool, diacriticInsensitive: Bool) {
        self = []
        if caseInsensitive { insert(.caseInsensitive) }
        if diacriticInsensitive { insert(.diacriticInsensitive) }
    }
}
