import SwiftDiagnostics

/// A mistake in a model class that the macros report at compile time.
struct ModelDiagnostic: DiagnosticMessage {
    let message: String
    let id: String

    var diagnosticID: MessageID { MessageID(domain: "StrataMacros", id: id) }
    var severity: DiagnosticSeverity { .error }

    static let notAClass = ModelDiagnostic(
        message: "@Model applies to a class; a struct, enum or actor cannot be a persistent model",
        id: "notAClass")
    static let missingType = ModelDiagnostic(
        message: "a persisted property needs a type annotation (`var count: Int = 0`); mark it @Transient to keep it out of the store",
        id: "missingType")
    static let letProperty = ModelDiagnostic(
        message: "a persisted property must be `var`; a `let` cannot be loaded from the store (mark it @Transient to keep it in memory only)",
        id: "letProperty")
    static let inverseNotKeyPath = ModelDiagnostic(
        message: "`inverse:` takes a key path literal such as `\\Employee.department`",
        id: "inverseNotKeyPath")
    static let keyPathsNotLiteral = ModelDiagnostic(
        message: "#Unique and #Index take arrays of key path literals such as `[\\.name, \\.email]`",
        id: "keyPathsNotLiteral")
}
