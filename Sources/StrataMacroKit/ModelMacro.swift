import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: turns a class into a persistent model, as SwiftData's macro does.
///
/// - member: the backing data, `init(backingData:)`, the schema metadata read from the
///   stored properties and their `@Attribute`/`@Relationship` markers, the
///   `#Unique`/`#Index` constraints written in the body, and the entity's name (the
///   class's name, unless the class declares `entityName`);
/// - member attribute: `@_PersistedProperty` on every persisted stored property, which
///   turns it into accessors over the object layer;
/// - extension: the `PersistentModel` conformance.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAClass))
            return []
        }
        let typeName = classDecl.name.text
        var entries: [String] = []
        var unsetStorage: [String] = []
        for variable in PropertyFacts.persisted(in: classDecl.memberBlock.members) {
            if variable.bindingSpecifier.tokenKind == .keyword(.let) {
                context.diagnose(Diagnostic(node: variable, message: ModelDiagnostic.letProperty))
                continue
            }
            guard let facts = PropertyFacts(variable) else {
                context.diagnose(Diagnostic(node: variable, message: ModelDiagnostic.missingType))
                continue
            }
            entries.append(metadataEntry(facts, typeName: typeName, context: context))
            if PropertyFacts.storageStartsUnset(variable) { unsetStorage.append(facts.name) }
        }
        var unique: [String] = []
        var indexes: [String] = []
        for member in classDecl.memberBlock.members {
            guard let expansion = member.decl.as(MacroExpansionDeclSyntax.self) else { continue }
            let macroName = expansion.macroName.text
            guard macroName == "Unique" || macroName == "Index" else { continue }
            for argument in expansion.arguments {
                guard let groups = keyPathGroups(argument.expression) else {
                    context.diagnose(Diagnostic(node: argument.expression, message: ModelDiagnostic.keyPathsNotLiteral))
                    continue
                }
                if macroName == "Unique" { unique.append(groups) } else { indexes.append(groups) }
            }
        }
        // Lines after the first take the member's indentation only: indent them here.
        let metadataList = entries.isEmpty ? "[]" : "[\n" + entries.map { "        \($0)," }.joined(separator: "\n") + "\n    ]"
        // A model made from the store sets the storage its initializers would have set.
        let storageLines = unsetStorage.map { "    self._\($0) = StrataData._PersistedStorage()\n" }.joined()
        var members: [DeclSyntax] = [
            "public var persistentBackingData = StrataData.ModelBackingData()",
            """
            public required init(backingData: StrataData.ModelBackingData) {
            \(raw: storageLines)    self.persistentBackingData = backingData
            }
            """,
            """
            public static var schemaMetadata: [StrataData.Schema.PropertyMetadata] {
                \(raw: metadataList)
            }
            """,
            """
            public static var schemaConstraints: StrataData.Schema.Constraints {
                StrataData.Schema.Constraints(unique: [\(raw: unique.joined(separator: ", "))], indexes: [\(raw: indexes.joined(separator: ", "))])
            }
            """,
        ]
        // The protocol's default answers `String(describing: Self.self)`, which demangles
        // the type's name on every call, and insertion asks on every insert: the name is
        // written here as a literal instead, unless the class declares its own.
        if !declaresEntityName(classDecl.memberBlock.members) {
            members.append("public static var entityName: String { \(literal: typeName) }")
        }
        return members
    }

    /// Whether the class declares `entityName` itself (to map onto an entity of another name).
    static func declaresEntityName(_ members: MemberBlockItemListSyntax) -> Bool {
        members.contains { member in
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { return false }
            return variable.bindings.contains { $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "entityName" }
        }
    }

    /// `[\.a, \.b]` → `["a", "b"]` (as Swift source), or nil when not key path literals.
    static func keyPathGroups(_ expression: ExprSyntax) -> String? {
        guard let array = expression.as(ArrayExprSyntax.self) else { return nil }
        var names: [String] = []
        for element in array.elements {
            guard let keyPath = element.expression.as(KeyPathExprSyntax.self),
                  let path = keyPath.propertyNames else { return nil }
            names.append("\"\(path.joined(separator: "."))\"")
        }
        return "[" + names.joined(separator: ", ") + "]"
    }

    static func metadataEntry(_ facts: PropertyFacts, typeName: String, context: some MacroExpansionContext) -> String {
        let defaultValue = facts.initializer.map(\.description) ?? "nil"
        var entry = "StrataData.Schema.PropertyMetadata(name: \"\(facts.name)\", keyPath: \\\(typeName).\(facts.name), defaultValue: \(defaultValue)"
        if let attribute = facts.attribute {
            let arguments = attribute.arguments?.as(LabeledExprListSyntax.self).map(Array.init) ?? []
            let options = arguments.filter { $0.label == nil }.map(\.expression.trimmedDescription)
            let originalName = arguments.first { $0.label?.text == "originalName" }?.expression.trimmedDescription ?? "nil"
            entry += ", attribute: StrataData.Schema.Attribute(options: [\(options.joined(separator: ", "))], originalName: \(originalName))"
        }
        if let relationship = facts.relationship {
            var arguments: [String] = []
            for argument in relationship.arguments?.as(LabeledExprListSyntax.self) ?? [] {
                guard let label = argument.label?.text else { continue }
                if label == "inverse" {
                    guard let keyPath = argument.expression.as(KeyPathExprSyntax.self),
                          let names = keyPath.propertyNames, names.count == 1 else {
                        context.diagnose(Diagnostic(node: argument.expression, message: ModelDiagnostic.inverseNotKeyPath))
                        continue
                    }
                    arguments.append("inverseName: \"\(names[0])\"")
                } else {
                    arguments.append("\(label): \(argument.expression.trimmedDescription)")
                }
            }
            entry += ", relationship: StrataData.Schema.Relationship(\(arguments.joined(separator: ", ")))"
        }
        return entry + ")"
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard declaration.is(ClassDeclSyntax.self),
              let variable = member.as(VariableDeclSyntax.self),
              variable.bindingSpecifier.tokenKind == .keyword(.var),
              PropertyFacts.isPersisted(variable),
              variable.bindings.first?.typeAnnotation != nil,
              !variable.hasAttribute("_PersistedProperty")
        else { return [] }
        return ["@_PersistedProperty"]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else { return [] }
        let decl: DeclSyntax = "extension \(type.trimmed): StrataData.PersistentModel {}"
        return [decl.cast(ExtensionDeclSyntax.self)]
    }
}
