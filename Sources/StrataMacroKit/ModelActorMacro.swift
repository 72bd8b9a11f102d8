import SwiftSyntax
import SwiftSyntaxMacros

/// `@ModelActor actor A { … }`: as SwiftData's, gives the actor a model container, an
/// executor of Strata's holding a new context, `init(modelContainer:)`, and the
/// `ModelActor` conformance (which isolates the actor to that executor and hands out
/// `modelContext`).
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else {
            throw ModelActorDiagnostic.notAnActor
        }
        let access = declaration.modifiers.contains { $0.name.tokenKind == .keyword(.public) } ? "public " : ""
        return [
            "nonisolated \(raw: access)let modelExecutor: any StrataData.ModelExecutor",
            "nonisolated \(raw: access)let modelContainer: StrataData.ModelContainer",
            """
            \(raw: access)init(modelContainer: StrataData.ModelContainer) {
                let modelContext = StrataData.ModelContext(modelContainer)
                self.modelExecutor = StrataData.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): StrataData.ModelActor {}")]
    }
}

/// Why `@ModelActor` cannot expand.
enum ModelActorDiagnostic: Error, CustomStringConvertible {
    case notAnActor

    var description: String {
        switch self {
        case .notAnActor: "@ModelActor applies to an actor"
        }
    }
}
