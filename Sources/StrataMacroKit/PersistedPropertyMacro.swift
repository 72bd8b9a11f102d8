import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty` (added by `@Model`): replaces a stored property's storage with
/// accessors over the model's backing data, and adds the zero-size `_name` storage the
/// init accessor needs so that `self.name = name` works in the class's own init. That
/// storage starts unset for a non-optional property without an initial value (see
/// ``PropertyFacts/storageStartsUnset(_:)``); `init(backingData:)` sets it.
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
              let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
        else { return [] }
        // An initial value that is the read's placeholder and the entity's default needs
        // no keeping (see PropertyFacts.initialValueIsPlaceholder).
        let initAccessor: AccessorDeclSyntax = PropertyFacts.initialValueIsPlaceholder(variable)
            ? """
            @storageRestrictions(initializes: _\(raw: name))
            init(initialValue) {
                _\(raw: name) = StrataData._PersistedStorage()
            }
            """
            : """
            @storageRestrictions(accesses: persistentBackingData, initializes: _\(raw: name))
            init(initialValue) {
                persistentBackingData.setInitialValue(initialValue, forKey: "\(raw: name)")
                _\(raw: name) = StrataData._PersistedStorage()
            }
            """
        return [
            initAccessor,
            """
            get {
                getValue(forKey: "\(raw: name)")
            }
            """,
            """
            set {
                setValue(newValue, forKey: "\(raw: name)")
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
              let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
        else { return [] }
        if PropertyFacts.storageStartsUnset(variable) {
            return ["private var _\(raw: name): StrataData._PersistedStorage"]
        }
        return ["private var _\(raw: name) = StrataData._PersistedStorage()"]
    }
}
