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
