import StrataLog

extension MappingModel {
    /// One mapping model doing what several, run in order, would do: a v1 store reaches
    /// v3 in one pass through the inferred v1 → v2 and v2 → v3 mappings, renames chained
    /// (`Plant.species` → `Specimen.scientificName`), conversions and defaults kept in
    /// order.
    ///
    /// ```swift
    /// let v1ToV3 = try MappingModel.composed([
    ///     MappingModel.inferred(from: v1, to: v2),
    ///     MappingModel.inferred(from: v2, to: v3),
    /// ])
    /// ```
    ///
    /// Only mappings that describe each destination value in terms of the source object
    /// compose: every inferred mapping does. A later mapping may not have a policy, a
    /// source predicate, a `.closure` expression or a key path through relationships,
    /// since those need the intermediate objects; an earlier one may not have a policy.
    /// Run such mappings one after the other instead.
    ///
    /// - Throws: `StrataError` `invalidArgument` for an empty list or hashes that do not
    ///   chain; `migrationFailed` naming the entity mapping that does not compose.
    public static func composed(_ mappings: [MappingModel]) throws -> MappingModel {
        guard var result = mappings.first else {
            throw StrataError(.invalidArgument, "MappingModel.composed needs at least one mapping model")
        }
        for (position, next) in mappings.dropFirst().enumerated() {
            guard result.destinationModelHash == next.sourceModelHash else {
                throw StrataError(
                    .invalidArgument,
                    "mapping model \(position + 1) starts from hash \(next.sourceModelHash), "
                        + "but the one before it arrives at \(result.destinationModelHash)",
                    context: ["position": String(position + 1)])
            }
            result = try MappingComposition(first: result, second: next).composed()
        }
        return result
    }
}
