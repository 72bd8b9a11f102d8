import StrataLog

/// The registry of named value transformers, as Core Data's
/// `ValueTransformer.setValueTransformer(_:forName:)`: a store whose model has a
/// `transformable` attribute opens only when the transformer it names is registered.
///
/// The registry is process-wide and safe to use from any task; register transformers
/// once at launch, before opening stores.
///
/// ```swift
/// try ValueTransformers.register(PNGTransformer(), named: "PNGImage")
/// ValueTransformers.transformer(named: "PNGImage")   // the transformer
/// ValueTransformers.transformer(named: "JSON")       // the built-in JSONValueTransformer
/// ```
public enum ValueTransformers {
    private static let registry = Locked<[String: any AttributeValueTransformer]>(
        [JSONValueTransformer.name: JSONValueTransformer()])

    /// Registers `transformer` under `name`, replacing one registered under the same
    /// name before (as Core Data does).
    ///
    /// - Throws: `StrataError` `.invalidArgument` for an empty name, a name holding
    ///   white space, or the built-in ``JSONValueTransformer/name``, which cannot be
    ///   replaced: stores written through it must keep reading.
    public static func register(_ transformer: some AttributeValueTransformer, named name: String) throws {
        guard !name.isEmpty, !name.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw StrataError(.invalidArgument, "a value transformer name must be non-empty and without white space, not '\(name)'",
                              context: ["valueTransformerName": name])
        }
        guard name != JSONValueTransformer.name else {
            throw StrataError(.invalidArgument, "'\(name)' is the built-in JSON transformer's name and cannot be replaced",
                              context: ["valueTransformerName": name])
        }
        registry.withLock { $0[name] = transformer }
    }

    /// Removes the transformer registered under `name` (the built-in one stays).
    public static func unregister(named name: String) {
        guard name != JSONValueTransformer.name else { return }
        _ = registry.withLock { $0.removeValue(forKey: name) }
    }

    /// The transformer registered under `name`, or nil.
    public static func transformer(named name: String) -> (any AttributeValueTransformer)? {
        registry.withLock { $0[name] }
    }

    /// Every registered name, sorted (the built-in `JSON` included).
    public static var registeredNames: [String] {
        registry.withLock { $0.keys.sorted() }
    }
}
