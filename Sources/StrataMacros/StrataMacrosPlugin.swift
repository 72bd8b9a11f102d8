import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plug-in that expands StrataData's macros. Their implementation is in
/// Implementation/ (a link to StrataMacroKit, which the expansion tests use), so the
/// tests do not depend on this macro target.
@main
struct StrataMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [
        ModelMacro.self,
        PersistedPropertyMacro.self,
        AttributeMacro.self,
        RelationshipMacro.self,
        TransientMacro.self,
        UniqueMacro.self,
        IndexMacro.self,
        ModelActorMacro.self,
    ]
}
