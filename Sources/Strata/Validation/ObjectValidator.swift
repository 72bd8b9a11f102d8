import Foundation
import StrataLog

/// Checks the objects a save will write against their model: every failure of every
/// object is collected, so one failed save reports them all.
struct ObjectValidator {
    let context: ObjectContext

    func failures(of object: ManagedObject) throws -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        // The object's id is made for a failure only: made for every object saved, it
        // would be an allocation per object validated.
        func fail(_ property: String?, _ rule: String, _ message: String) {
            failures.append(ValidationFailure(object: object.objectID, property: property, rule: rule, message: message))
        }
        for attribute in object.shape.attributeChecks {
            let value = try storedValue(object, attribute)
            if value.isNull {
                if !attribute.isOptional { fail(attribute.name, "required", "\(object.entity.name).\(attribute.name) is required") }
                continue
            }
            if !value.conforms(to: attribute.type) {
                fail(attribute.name, "type", "\(object.entity.name).\(attribute.name) holds \(value), not \(attribute.type)")
                continue
            }
            for (rule, message) in attribute.brokenRules(value) { fail(attribute.name, rule, message) }
        }
        for relationship in object.shape.relationships {
            if relationship.isToMany {
                let minimum = relationship.minimumCount ?? (relationship.isOptional ? 0 : 1)
                // Nothing to count against: a large relationship is not walked for nothing.
                guard minimum > 0 || relationship.maximumCount != nil else { continue }
                let count = try object.count(relationship.name)
                if count < minimum {
                    fail(relationship.name, "minimumCount", "\(object.entity.name).\(relationship.name) has \(count), needs at least \(minimum)")
                }
                if let maximum = relationship.maximumCount, count > maximum {
                    fail(relationship.name, "maximumCount", "\(object.entity.name).\(relationship.name) has \(count), at most \(maximum) allowed")
                }
            } else if !relationship.isOptional, try object.object(relationship.name) == nil {
                fail(relationship.name, "required", "\(object.entity.name).\(relationship.name) is required")
            }
        }
        return failures
    }

    /// The stored value without reading external blobs: a stored blob was valid when
    /// written, and only its presence matters here (an empty placeholder stands for it)
    /// unless a length rule asks for its bytes.
    private func storedValue(_ object: ManagedObject, _ attribute: AttributeCheck) throws -> Value {
        switch try attribute.number.map(object.field(number:)) ?? object.field(attribute.name) {
        case .null: return .null
        case .value(let value): return value
        case .blob:
            if attribute.hasLengthRule {
                return try object.value(forKey: attribute.name)
            }
            return .binary(Data())
        case .reference, .references: return .null
        }
    }
}
