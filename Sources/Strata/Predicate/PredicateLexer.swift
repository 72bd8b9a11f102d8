/// Splits a predicate format string into tokens.
///
/// Positions are offsets in `Character`s, which is what a person counts when reading
/// the error "expected … at position 12" against the string they wrote.
struct PredicateLexer {
    private let characters: [Character]
    private var index = 0

    init(_ format: String) {
        characters = Array(format)
    }

    /// All tokens, ending with `.end`.
    ///
    /// - Throws: `StrataError` `.predicateSyntax` for an unterminated string, a bad
    ///   escape, a malformed number or a character the language does not use.
    static func tokenize(_ format: String) throws -> [PredicateToken] {
        var lexer = PredicateLexer(format)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private var current: Character? { index < characters.count ? characters[index] : nil }
    private func peek(_ offset: Int = 1) -> Character? {
        index + offset < characters.count ? characters[index + offset] : nil
    }

    mutating func next() throws -> PredicateToken {
        while let character = current, character.isWhitespace { index += 1 }
        let start = index
        guard let character = current else { return PredicateToken(kind: .end, position: start) }

        if character.isPredicateIdentifierStart {
            return PredicateToken(kind: .identifier(readIdentifier()), position: start)
        }
        if character.isASCII, character.isNumber {
            return try readNumber(start: start)
        }
        switch character {
        case "'", "\"":
            return try readString(quote: character, start: start)
        case "$", "#", "@":
            index += 1
            guard let next = current, next.isPredicateIdentifierStart else {
                throw PredicateSyntaxError.make(at: index, expected: "a name after '\(character)'", found: describe(current))
            }
            var name = readIdentifier()
            // `$FETCH_SOURCE.department.name`: a variable's key path is part of its name,
            // resolved when the variable is bound (a fetched property's source object).
            while character == "$", current == ".", let after = peek(), after.isPredicateIdentifierStart {
                index += 1
                name += "." + readIdentifier()
            }
            let kind: PredicateToken.Kind = switch character {
            case "$": .variable(name)
            case "#": .escapedIdentifier(name)
            default: .collectionOperator(name)
            }
            return PredicateToken(kind: kind, position: start)
        case "%":
            index += 1
            switch current {
            case "@": index += 1; return PredicateToken(kind: .argument(isKey: false), position: start)
            case "K": index += 1; return PredicateToken(kind: .argument(isKey: true), position: start)
            default:
                throw PredicateSyntaxError.make(at: index, expected: "'@' or 'K' after '%'", found: describe(current))
            }
        default:
            break
        }

        // Two-character operators first, so that "<=" is not read as "<" then "=".
        if let second = peek() {
            let pair = String([character, second])
            let canonical: String? = switch pair {
            case "==": "=="
            case "!=", "<>": "!="
            case "<=", "=<": "<="
            case ">=", "=>": ">="
            case "&&": "&&"
            case "||": "||"
            default: nil
            }
            if let canonical {
                index += 2
                return PredicateToken(kind: .symbol(canonical), position: start)
            }
        }
        switch character {
        case "=":
            index += 1
            return PredicateToken(kind: .symbol("=="), position: start)
        case "(", ")", "{", "}", ",", ".", "[", "]", "<", ">", "!", "-":
            index += 1
            return PredicateToken(kind: .symbol(String(character)), position: start)
        default:
            throw PredicateSyntaxError.make(at: start, expected: "a key path, a value or an operator", found: describe(character))
        }
    }

    private mutating func readIdentifier() -> String {
        var name = ""
        while let character = current, character.isPredicateIdentifierContinuation {
            name.append(character)
            index += 1
        }
        return name
    }

    private mutating func readDigits() -> String {
        var digits = ""
        while let character = current, character.isASCII, character.isNumber {
            digits.append(character)
            index += 1
        }
        return digits
    }

    private mutating func readNumber(start: Int) throws -> PredicateToken {
        var text = readDigits()
        var isInteger = true
        // A dot followed by a digit continues the number; `1.foo` is not a number, and
        // a key path never starts with a digit, so there is no other reading.
        if current == ".", let next = peek(), next.isASCII, next.isNumber {
            index += 1
            text += "." + readDigits()
            isInteger = false
        }
        if current == "e" || current == "E" {
            index += 1
            var exponent = "e"
            if current == "+" || current == "-", let sign = current {
                exponent.append(sign)
                index += 1
            }
            let digits = readDigits()
            guard !digits.isEmpty else {
                throw PredicateSyntaxError.make(at: index, expected: "digits of the exponent", found: describe(current))
            }
            text += exponent + digits
            isInteger = false
        }
        if let character = current, character.isPredicateIdentifierContinuation {
            throw PredicateSyntaxError.make(at: index, expected: "a digit or the end of the number", found: describe(character))
        }
        if isInteger {
            guard let value = Int64(text) else {
                throw PredicateSyntaxError.make(at: start, expected: "an integer within 64 bits", found: "'\(text)'")
            }
            return PredicateToken(kind: .integer(value), position: start)
        }
        guard let value = Double(text) else {
            throw PredicateSyntaxError.make(at: start, expected: "a number", found: "'\(text)'")
        }
        return PredicateToken(kind: .double(value), position: start)
    }

    private mutating func readString(quote: Character, start: Int) throws -> PredicateToken {
        index += 1
        var value = ""
        while let character = current {
            index += 1
            if character == quote {
                return PredicateToken(kind: .string(value), position: start)
            }
            guard character == "\\" else {
                value.append(character)
                continue
            }
            let escapePosition = index - 1
            guard let escaped = current else { break }
            index += 1
            switch escaped {
            case "\\", "'", "\"": value.append(escaped)
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            // LIKE patterns use `\*` and `\?` for literal wildcards: keep the backslash
            // so that the pattern, not the lexer, decides what it means.
            case "*", "?": value.append("\\"); value.append(escaped)
            case "u":
                var hex = ""
                while hex.count < 4, let digit = current, digit.isHexDigit {
                    hex.append(digit)
                    index += 1
                }
                guard hex.count == 4, let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                    throw PredicateSyntaxError.make(at: escapePosition, expected: "four hexadecimal digits after '\\u'", found: "'\\u\(hex)'")
                }
                value.unicodeScalars.append(scalar)
            default:
                throw PredicateSyntaxError.make(
                    at: escapePosition, expected: "an escape (\\\\, \\', \\\", \\n, \\t, \\r, \\0, \\uXXXX)", found: "'\\\(escaped)'")
            }
        }
        throw PredicateSyntaxError.make(at: start, expected: "a closing \(quote) for the string starting here", found: "the end of the format")
    }

    private func describe(_ character: Character?) -> String {
        character.map { "'\($0)'" } ?? "the end of the format"
    }
}

extension Character {
    fileprivate var isPredicateIdentifierStart: Bool {
        self == "_" || (isLetter && !isNumber)
    }

    fileprivate var isPredicateIdentifierContinuation: Bool {
        self == "_" || isLetter || isNumber
    }
}
