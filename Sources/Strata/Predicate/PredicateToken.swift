/// A token of the predicate format language, with the character offset where it starts.
struct PredicateToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A name: a key path component or a keyword (keywords are matched case-insensitively by the parser).
        case identifier(String)
        /// A name escaped with `#` so that a reserved word can be a key (`#order`).
        case escapedIdentifier(String)
        /// `@count` and other collection operators, without the `@`.
        case collectionOperator(String)
        case integer(Int64)
        case double(Double)
        case string(String)
        /// `$name`.
        case variable(String)
        /// `%@` (`isKey` false) or `%K` (`isKey` true).
        case argument(isKey: Bool)
        /// Punctuation and symbolic operators: `( ) { } , . [ ] == != < <= > >= && || ! -`.
        case symbol(String)
        case end
    }

    var kind: Kind
    /// The offset, in characters from the start of the format string, of the token's first character.
    var position: Int

    /// How the token is named in an error message.
    var description: String {
        switch kind {
        case .identifier(let name): return "'\(name)'"
        case .escapedIdentifier(let name): return "'#\(name)'"
        case .collectionOperator(let name): return "'@\(name)'"
        case .integer(let value): return "'\(value)'"
        case .double(let value): return "'\(value)'"
        case .string(let value): return "the string '\(value)'"
        case .variable(let name): return "'$\(name)'"
        case .argument(let isKey): return isKey ? "'%K'" : "'%@'"
        case .symbol(let symbol): return "'\(symbol)'"
        case .end: return "the end of the format"
        }
    }
}
