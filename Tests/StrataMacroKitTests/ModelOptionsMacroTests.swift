import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Model`'s schema metadata for every option of `@Attribute`, `@Relationship`,
/// `@Transient`, `#Unique` and `#Index`, and the mistakes it reports.
@Suite struct ModelOptionsMacroTests {
    /// The expansion of a persisted property `name` (accessors and storage). swift-syntax's
    /// expansion drops the initializer of a property that gains accessors; the compiler
    /// keeps it and passes it to the init accessor (the default-value tests show it).
    /// `unset`: a non-optional property without an initial value, whose storage starts
    /// unset (its class's initializers assign it; `init(backingData:)` sets it).
    /// `keepsNothing`: an initial value that is the read's placeholder (`0`, `nil`, `[]`…),
    /// which the init accessor does not keep.
    func persisted(_ declaration: String, _ name: String, unset: Bool = false, keepsNothing: Bool = false) -> String {
        let initAccessor = keepsNothing ? """
                @storageRestrictions(initializes: _\(name))
                init(initialValue) {
                    _\(name) = StrataData._PersistedStorage()
                }
        """ : """
                @storageRestrictions(accesses: persistentBackingData, initializes: _\(name))
                init(initialValue) {
                    persistentBackingData.setInitialValue(initialValue, forKey: "\(name)")
                    _\(name) = StrataData._PersistedStorage()
                }
        """
        return """
            \(declaration) {
        \(initAccessor)
                get {
                    getValue(forKey: "\(name)")
                }
                set {
                    setValue(newValue, forKey: "\(name)")
                }
            }

            private var _\(name)\(unset ? ": StrataData._PersistedStorage" : " = StrataData._PersistedStorage()")
        """
    }

    /// The members `@Model` adds, with `entries` as schema metadata.
    func members(_ type: String, _ entries: [String], unique: String = "", indexes: String = "", unsetStorage: [String] = []) -> String {
        """
            public var persistentBackingData = StrataData.ModelBackingData()

            public required init(backingData: StrataData.ModelBackingData) {
        \(unsetStorage.map { "        self._\($0) = StrataData._PersistedStorage()\n" }.joined())        self.persistentBackingData = backingData
            }

            public static var schemaMetadata: [StrataData.Schema.PropertyMetadata] {
                [
        \(entries.map { "            \($0)," }.joined(separator: "\n"))
                ]
            }

            public static var schemaConstraints: StrataData.Schema.Constraints {
                StrataData.Schema.Constraints(unique: [\(unique)], indexes: [\(indexes)])
            }

            public static var entityName: String {
                "\(type)"
            }
        }

        extension \(type): StrataData.PersistentModel {
        }
        """
    }

    @Test func attributeOptionsAndDefaults() {
        expectExpansion(
            """
            @Model final class Employee {
                @Attribute(.unique, .externalStorage, originalName: "picture") var photo: Data?
                var salary: Double = 0
                var rating: Int = 3
                @Transient var isSelected = false
                var shout: String { "!" }
                static var count = 0
            }
            """,
            expandedSource: """
            final class Employee {
            \(persisted("var photo: Data?", "photo"))
            \(persisted("var salary: Double", "salary", keepsNothing: true))
            \(persisted("var rating: Int", "rating"))
                var isSelected = false
                var shout: String { "!" }
                static var count = 0

            \(members("Employee", [
                #"StrataData.Schema.PropertyMetadata(name: "photo", keyPath: \Employee.photo, defaultValue: nil, attribute: StrataData.Schema.Attribute(options: [.unique, .externalStorage], originalName: "picture"))"#,
                #"StrataData.Schema.PropertyMetadata(name: "salary", keyPath: \Employee.salary, defaultValue: 0)"#,
                #"StrataData.Schema.PropertyMetadata(name: "rating", keyPath: \Employee.rating, defaultValue: 3)"#,
            ]))
            """)
    }

    @Test func relationshipOptions() {
        expectExpansion(
            """
            @Model final class Team {
                @Relationship(deleteRule: .deny, minimumModelCount: 1, maximumModelCount: 5, originalName: "crew", inverse: \\Member.team)
                var members: [Member] = []
                var lead: Member?
            }
            """,
            expandedSource: """
            final class Team {
            \(persisted("var members: [Member]", "members", keepsNothing: true))
            \(persisted("var lead: Member?", "lead"))

            \(members("Team", [
                #"StrataData.Schema.PropertyMetadata(name: "members", keyPath: \Team.members, defaultValue: [], relationship: StrataData.Schema.Relationship(deleteRule: .deny, minimumModelCount: 1, maximumModelCount: 5, originalName: "crew", inverseName: "team"))"#,
                #"StrataData.Schema.PropertyMetadata(name: "lead", keyPath: \Team.lead, defaultValue: nil)"#,
            ]))
            """)
    }

    @Test func uniqueAndIndexDeclarations() {
        expectExpansion(
            """
            @Model final class Person {
                #Unique<Person>([\\.email], [\\.first, \\.last])
                #Index<Person>([\\.last], [\\Person.age])
                var email: String
                var first: String
                var last: String
                var age: Int
            }
            """,
            expandedSource: """
            final class Person {
            \(persisted("var email: String", "email", unset: true))
            \(persisted("var first: String", "first", unset: true))
            \(persisted("var last: String", "last", unset: true))
            \(persisted("var age: Int", "age", unset: true))

            \(members("Person", [
                #"StrataData.Schema.PropertyMetadata(name: "email", keyPath: \Person.email, defaultValue: nil)"#,
                #"StrataData.Schema.PropertyMetadata(name: "first", keyPath: \Person.first, defaultValue: nil)"#,
                #"StrataData.Schema.PropertyMetadata(name: "last", keyPath: \Person.last, defaultValue: nil)"#,
                #"StrataData.Schema.PropertyMetadata(name: "age", keyPath: \Person.age, defaultValue: nil)"#,
            ], unique: #"["email"], ["first", "last"]"#, indexes: #"["last"], ["age"]"#, unsetStorage: ["email", "first", "last", "age"]))
            """)
    }

    @Test func mistakesAreReported() {
        expectExpansion(
            """
            @Model struct Point {
                var x: Double
            }
            """,
            expandedSource: """
            struct Point {
                var x: Double
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "@Model applies to a class; a struct, enum or actor cannot be a persistent model", line: 1, column: 1),
            ])
        expectExpansion(
            """
            @Model final class Thing {
                let id: Int
                var count = 0
                @Relationship(inverse: nil) var other: Thing?
            }
            """,
            expandedSource: """
            final class Thing {
                let id: Int
                var count = 0
            \(persisted("var other: Thing?", "other"))

            \(members("Thing", [
                #"StrataData.Schema.PropertyMetadata(name: "other", keyPath: \Thing.other, defaultValue: nil, relationship: StrataData.Schema.Relationship())"#,
            ]))
            """,
            diagnostics: [
                DiagnosticSpec(message: "a persisted property must be `var`; a `let` cannot be loaded from the store (mark it @Transient to keep it in memory only)", line: 2, column: 5),
                DiagnosticSpec(message: "a persisted property needs a type annotation (`var count: Int = 0`); mark it @Transient to keep it out of the store", line: 3, column: 5),
                DiagnosticSpec(message: "`inverse:` takes a key path literal such as `\\Employee.department`", line: 4, column: 28),
            ])
    }
}
