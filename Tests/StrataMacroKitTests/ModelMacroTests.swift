import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@Model` and its companions expand to, option by option.
@Suite struct ModelMacroTests {
    @Test func aPlainProperty() {
        expectExpansion(
            """
            @Model final class Note {
                var title: String
                init(title: String) { self.title = title }
            }
            """,
            expandedSource: """
            final class Note {
                var title: String {
                    @storageRestrictions(accesses: persistentBackingData, initializes: _title)
                    init(initialValue) {
                        persistentBackingData.setInitialValue(initialValue, forKey: "title")
                        _title = StrataData._PersistedStorage()
                    }
                    get {
                        getValue(forKey: "title")
                    }
                    set {
                        setValue(newValue, forKey: "title")
                    }
                }

                private var _title: StrataData._PersistedStorage
                init(title: String) { self.title = title }

                public var persistentBackingData = StrataData.ModelBackingData()

                public required init(backingData: StrataData.ModelBackingData) {
                    self._title = StrataData._PersistedStorage()
                    self.persistentBackingData = backingData
                }

                public static var schemaMetadata: [StrataData.Schema.PropertyMetadata] {
                    [
                        StrataData.Schema.PropertyMetadata(name: "title", keyPath: \\Note.title, defaultValue: nil),
                    ]
                }

                public static var schemaConstraints: StrataData.Schema.Constraints {
                    StrataData.Schema.Constraints(unique: [], indexes: [])
                }

                public static var entityName: String {
                    "Note"
                }
            }

            extension Note: StrataData.PersistentModel {
            }
            """)
    }

    /// A class that names its entity itself keeps its own `entityName`: `@Model` adds none.
    @Test func aDeclaredEntityNameIsKept() {
        expectExpansion(
            """
            @Model final class Note {
                static var entityName: String { "Memo" }
            }
            """,
            expandedSource: """
            final class Note {
                static var entityName: String { "Memo" }

                public var persistentBackingData = StrataData.ModelBackingData()

                public required init(backingData: StrataData.ModelBackingData) {
                    self.persistentBackingData = backingData
                }

                public static var schemaMetadata: [StrataData.Schema.PropertyMetadata] {
                    []
                }

                public static var schemaConstraints: StrataData.Schema.Constraints {
                    StrataData.Schema.Constraints(unique: [], indexes: [])
                }
            }

            extension Note: StrataData.PersistentModel {
            }
            """)
    }
}
