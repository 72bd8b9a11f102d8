import SwiftSyntax

/// What @Model reads from one stored property of a model class.
struct PropertyFacts {
    let name: String
    let type: TypeSyntax
    let initializer: ExprSyntax?
    let attribute: AttributeSyntax?
    let relationship: AttributeSyntax?

    /// The stored `var`s of a class body that the store persists: not static, not
    /// computed, not `@Transient`, not the macro's own storage.
    static func persisted(in members: MemberBlockItemListSyntax) -> [VariableDeclSyntax] {
        members.compactMap { $0.decl.as(VariableDeclSyntax.self) }.filter(isPersisted)
    }

    static func isPersisted(_ variable: VariableDeclSyntax) -> Bool {
        if variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) || $0.name.tokenKind == .keyword(.lazy) }) {
            return false
        }
        if variable.hasAttribute("Transient") { return false }
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
        else { return false }
        if identifier.hasPrefix("_") || identifier == "persistentBackingData" { return false }
        if let accessors = binding.accessorBlock?.accessors {
            // A computed property (a getter, or explicit get/set) has no storage.
            switch accessors {
            case .getter: return false
            case .accessors(let list):
                if list.contains(where: { [.keyword(.get), .keyword(.set), .keyword(.`init`)].contains($0.accessorSpecifier.tokenKind) }) {
                    return false
                }
            }
        }
        return true
    }

    /// Whether the property's storage is left for an initializer to set: a
    /// non-optional property without an initial value, which the class's own
    /// initializers must assign (as for a plain Swift property). Their first assignment
    /// then goes through the init accessor, which keeps the value without searching;
    /// with storage already set it would be a setter call. Optionals keep Swift's
    /// implicit `nil`: their storage starts set.
    static func storageStartsUnset(_ variable: VariableDeclSyntax) -> Bool {
        guard let binding = variable.bindings.first, binding.initializer == nil,
              let type = binding.typeAnnotation?.type else { return false }
        return !isOptional(type)
    }

    /// Whether the property's initial value is the one its read answers before anything
    /// is assigned and the entity's default: `nil` for an optional, `0` for a number,
    /// `""`, `false`, `[]`. Its init accessor keeps nothing then. Every model made from
    /// the store runs the init accessors of the properties with initial values, only to
    /// drop what they keep; for these it costs nothing.
    static func initialValueIsPlaceholder(_ variable: VariableDeclSyntax) -> Bool {
        guard let binding = variable.bindings.first, let value = binding.initializer?.value,
              let type = binding.typeAnnotation?.type else { return false }
        if isOptional(type) { return value.is(NilLiteralExprSyntax.self) }
        if type.is(ArrayTypeSyntax.self) {
            return value.as(ArrayExprSyntax.self)?.elements.isEmpty ?? false
        }
        guard let name = type.as(IdentifierTypeSyntax.self)?.name.text else { return false }
        switch name {
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64":
            return value.as(IntegerLiteralExprSyntax.self)?.literal.text == "0"
        case "Double", "Float", "Decimal":
            if let integer = value.as(IntegerLiteralExprSyntax.self) { return integer.literal.text == "0" }
            if let float = value.as(FloatLiteralExprSyntax.self) { return Double(float.literal.text) == 0 }
            return false
        case "String":
            guard let string = value.as(StringLiteralExprSyntax.self) else { return false }
            return string.segments.allSatisfy { $0.as(StringSegmentSyntax.self)?.content.text.isEmpty ?? false }
        case "Bool":
            return value.as(BooleanLiteralExprSyntax.self)?.literal.tokenKind == .keyword(.false)
        default:
            return false
        }
    }

    static func isOptional(_ type: TypeSyntax) -> Bool {
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional" { return true }
        if let member = type.as(MemberTypeSyntax.self), member.name.text == "Optional" { return true }
        return false
    }

    init?(_ variable: VariableDeclSyntax) {
        guard let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
              let type = binding.typeAnnotation?.type
        else { return nil }
        name = identifier
        self.type = type.trimmed
        initializer = binding.initializer?.value.trimmed
        attribute = variable.attribute(named: "Attribute")
        relationship = variable.attribute(named: "Relationship")
    }
}

extension VariableDeclSyntax {
    func attribute(named name: String) -> AttributeSyntax? {
        for element in attributes {
            guard let attribute = element.as(AttributeSyntax.self) else { continue }
            let typeName = attribute.attributeName.trimmedDescription
            if typeName == name || typeName.hasSuffix(".\(name)") { return attribute }
        }
        return nil
    }

    func hasAttribute(_ name: String) -> Bool { attribute(named: name) != nil }
}

extension KeyPathExprSyntax {
    /// The property names of a key path literal: `\Employee.department` gives
    /// `["department"]`, `\.address.city` gives `["address", "city"]`.
    var propertyNames: [String]? {
        var names: [String] = []
        for component in components {
            guard let property = component.component.as(KeyPathPropertyComponentSyntax.self) else { return nil }
            names.append(property.declName.baseName.text)
        }
        return names.isEmpty ? nil : names
    }
}
