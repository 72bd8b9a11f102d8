import SwiftSyntaxMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import StrataMacroKit
import Testing

/// The macros under their source names, as StrataData declares them.
let strataMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel"]),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "Attribute": MacroSpec(type: AttributeMacro.self),
    "Relationship": MacroSpec(type: RelationshipMacro.self),
    "Transient": MacroSpec(type: TransientMacro.self),
    "Unique": MacroSpec(type: UniqueMacro.self),
    "Index": MacroSpec(type: IndexMacro.self),
    "ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"]),
]

/// swift-syntax's `assertMacroExpansion`, reporting through Swift Testing.
func expectExpansion(
    _ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    assertMacroExpansion(
        source, expandedSource: expandedSource, diagnostics: diagnostics, macroSpecs: strataMacros,
        failureHandler: { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        })
}
