import Foundation
import Strata

/// An entity's properties as ``JSONLineDecoder``'s fast path looks them up: by the
/// bytes of their names, trying first the property after the one found last, since
/// the lines of one file mostly list their keys in the same order.
final class EntityPlan {
    enum Property {
        case attribute(AttributeDescription)
        case relationship(RelationshipDescription)
        /// A composite or JSON-transformable attribute, whose JSON is re-encoded: the
        /// reference path reads those lines.
        case referencePath
    }

    let entity: EntityDescription
    let properties: [Property]
    private let names: [[UInt8]]
    private var next = 0

    init(_ entity: EntityDescription) {
        self.entity = entity
        var properties: [Property] = []
        var names: [[UInt8]] = []
        for name in entity.attributesByName.keys.sorted() {
            guard let attribute = entity.attributesByName[name] else { continue }
            let jsonTransformed = attribute.type == .transformable && attribute.valueTransformerName == JSONValueTransformer.name
            properties.append(attribute.type == .composite || jsonTransformed ? .referencePath : .attribute(attribute))
            names.append(Array(name.utf8))
        }
        for name in entity.relationshipsByName.keys.sorted() where entity.attributesByName[name] == nil {
            guard let relationship = entity.relationshipsByName[name] else { continue }
            properties.append(.relationship(relationship))
            names.append(Array(name.utf8))
        }
        self.properties = properties
        self.names = names
    }

    /// The position of the property named by `key`'s bytes, or nil.
    func index(of bytes: UnsafeBufferPointer<UInt8>, _ key: Range<Int>) -> Int? {
        let count = names.count
        guard count > 0 else { return nil }
        var candidate = next < count ? next : 0
        for _ in 0..<count {
            if matches(candidate, bytes, key) {
                next = candidate + 1
                return candidate
            }
            candidate = candidate + 1 == count ? 0 : candidate + 1
        }
        return nil
    }

    private func matches(_ index: Int, _ bytes: UnsafeBufferPointer<UInt8>, _ key: Range<Int>) -> Bool {
        let name = names[index]
        guard name.count == key.count else { return false }
        return name.withUnsafeBufferPointer { memcmp(bytes.baseAddress! + key.lowerBound, $0.baseAddress!, key.count) == 0 }
    }
}
