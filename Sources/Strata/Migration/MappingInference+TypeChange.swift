extension MappingInference {
    /// Why inference does not change `source`'s type (or value transformer) to
    /// `destination`'s, or nil when it does (``MappingTransform/isInferred(from:to:)``).
    func typeChangeProblem(from source: AttributeDescription, to destination: AttributeDescription) -> String? {
        let (from, to) = (source.type, destination.type)
        if from == to {
            guard from == .transformable, source.valueTransformerName != destination.valueTransformerName else { return nil }
            // The stored bytes are the old transformer's encoding: the new one would
            // misread them. Re-encoding needs both transformers, so a custom mapping.
            return "value transformer '\(source.valueTransformerName ?? "-")' → "
                + "'\(destination.valueTransformerName ?? "-")': the stored bytes are the old transformer's; "
                + "re-encode them in a custom mapping"
        }
        if MappingTransform.isInferred(from: from, to: to) { return nil }
        let change = "type change \(from.migrationDisplayName) → \(to.migrationDisplayName)"
        guard MappingTransform.isLossless(from: from, to: to) else { return "\(change) is not lossless" }
        let why = to == .string
            ? "the values would compare and sort as text"
            : "a Double holds an Int64 exactly only up to 2^53"
        return "\(change) is not inferred (\(why)); map it explicitly with "
            + "PropertyMapping(name: \"\(destination.name)\", value: .keyPath(\"\(source.name)\"), "
            + "transforms: [.convert(from: .\(from.rawValue), to: .\(to.rawValue))])"
    }
}
