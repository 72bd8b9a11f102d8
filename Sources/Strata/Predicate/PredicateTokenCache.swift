import StrataLog

/// The tokens of format strings already read, so that a predicate built from the same
/// format with new arguments (`departmentID == %@` for each department) is not split
/// into tokens again. Tokens depend on the format alone: the arguments are bound by the
/// parser, which still runs in full. As GRDB keeps statements by their SQL.
///
/// Tokenizing walks the format as `Character`s, whose classes (letter, digit,
/// whitespace) are Unicode property lookups, costly beside what an indexed query
/// spends judging its candidates. A hit costs a hash of the format and a lock.
///
/// Bounded: formats longer than `longestFormat` bytes of UTF-8 are never kept, and
/// at most 256 formats are (`BoundedMemo`). A format that does not tokenize is
/// not kept (its error is raised each time).
final class PredicateTokenCache: Sendable {
    static let shared = PredicateTokenCache()

    private let longestFormat = 1_024
    private let tokens = BoundedMemo<String, [PredicateToken]>(capacity: 256)

    /// `PredicateLexer.tokenize(format)`, from the cache when it was read before.
    ///
    /// - Throws: as `PredicateLexer.tokenize(_:)`.
    func tokens(of format: String) throws -> [PredicateToken] {
        guard format.utf8.count <= longestFormat else { return try PredicateLexer.tokenize(format) }
        return try tokens.answer(format) { try PredicateLexer.tokenize(format) }
    }

    /// How many formats are kept (for tests of the bound).
    var count: Int { tokens.count }
}
