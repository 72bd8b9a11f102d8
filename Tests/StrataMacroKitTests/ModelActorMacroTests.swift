import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@ModelActor`: SwiftData's members and conformance, on an actor only.
@Suite struct ModelActorMacroTests {
    @Test func anActorGetsAContainerAnExecutorAndItsInit() {
        expectExpansion(
            """
            @ModelActor actor Importer {
                func run() {}
            }
            """,
            expandedSource: """
            actor Importer {
                func run() {}

                nonisolated let modelExecutor: any StrataData.ModelExecutor

                nonisolated let modelContainer: StrataData.ModelContainer

                init(modelContainer: StrataData.ModelContainer) {
                    let modelContext = StrataData.ModelContext(modelContainer)
                    self.modelExecutor = StrataData.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
            }

            extension Importer: StrataData.ModelActor {
            }
            """)
    }

    @Test func aPublicActorsMembersArePublic() {
        expectExpansion(
            "@ModelActor public actor Importer {}",
            expandedSource: """
            public actor Importer {

                nonisolated public let modelExecutor: any StrataData.ModelExecutor

                nonisolated public let modelContainer: StrataData.ModelContainer

                public init(modelContainer: StrataData.ModelContainer) {
                    let modelContext = StrataData.ModelContext(modelContainer)
                    self.modelExecutor = StrataData.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
            }

            extension Importer: StrataData.ModelActor {
            }
            """)
    }

    @Test func aClassIsRefused() {
        expectExpansion(
            "@ModelActor final class Importer {}",
            expandedSource: "final class Importer {}",
            diagnostics: [DiagnosticSpec(message: "@ModelActor applies to an actor", line: 1, column: 1)])
    }
}
