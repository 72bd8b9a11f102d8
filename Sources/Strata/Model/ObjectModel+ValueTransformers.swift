import StrataLog

extension ObjectModel {
    /// Every stored `transformable` attribute whose value transformer is not
    /// registered, as `(entity, attribute, transformer name)`, in entity then
    /// declaration order; each attribute once, under the entity that declares it.
    package var unregisteredValueTransformers: [(entity: String, attribute: String, name: String)] {
        var missing: [(entity: String, attribute: String, name: String)] = []
        for entity in entities {
            for case .attribute(let attribute) in entity.declaredProperties
            where attribute.type == .transformable && !attribute.isTransient {
                let name = attribute.valueTransformerName ?? JSONValueTransformer.name
                if ValueTransformers.transformer(named: name) == nil {
                    missing.append((entity.name, attribute.name, name))
                }
            }
        }
        return missing
    }

    /// Throws when a transformable attribute names a transformer nobody registered:
    /// the store would open, then fail on the first read of that attribute.
    func checkValueTransformers(path: String) throws {
        guard let first = unregisteredValueTransformers.first else { return }
        let all = unregisteredValueTransformers.map { "\($0.entity).\($0.attribute) ('\($0.name)')" }
        throw StrataError(
            .invalidModel,
            "\(first.entity).\(first.attribute) uses the value transformer '\(first.name)', which is not registered; "
                + "register it with ValueTransformers.register(_:named:) before opening the store"
                + (all.count > 1 ? " (unregistered: \(all.joined(separator: ", ")))" : ""),
            path: path,
            context: ["entity": first.entity, "property": first.attribute, "valueTransformerName": first.name])
    }
}
