import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute(...)`: expands to nothing; `@Model` reads its options.
public struct AttributeMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}

/// `@Relationship(...)`: expands to nothing; `@Model` reads its options.
public struct RelationshipMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}

/// `@Transient`: expands to nothing; `@Model` leaves the property a plain stored one.
public struct TransientMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}

/// `#Unique<T>([\.a, \.b], …)`: expands to nothing; the compiler checks the key paths
/// and `@Model` reads them into the entity's uniqueness constraints.
public struct UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}

/// `#Index<T>([\.a], …)`: expands to nothing; `@Model` reads the indexed key paths.
public struct IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}
