import Foundation
import Synchronization

/// Compiled `MATCHES` patterns, so that evaluating one predicate over many objects
/// compiles its regular expression once rather than once per object.
///
/// Bounded: when it holds `capacity` patterns it starts afresh, which is enough for
/// the few patterns a process's predicates use and keeps caller-made patterns from
/// growing it without end.
final class PredicateRegexCache: Sendable {
    static let shared = PredicateRegexCache()

    private struct Key: Hashable {
        var pattern: String
        var options: NSRegularExpression.Options.RawValue
    }

    private let capacity = 64
    private let expressions = Mutex<[Key: NSRegularExpression]>([:])

    /// The compiled expression for `pattern`.
    ///
    /// - Throws: whatever `NSRegularExpression` throws for an invalid pattern.
    func expression(_ pattern: String, options: NSRegularExpression.Options) throws -> NSRegularExpression {
        let key = Key(pattern: pattern, options: options.rawValue)
        if let cached = expressions.withLock({ $0[key] }) { return cached }
        let compiled = try NSRegularExpression(pattern: pattern, options: options)
        expressions.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[key] = compiled
        }
        return compiled
    }
}
