import Foundation
import Testing
@testable import Strata

/// Helpers shared by the model tests.
enum ModelTestSupport {
    /// The directory of the committed JSON model files.
    static var fixturesDirectory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Model
            .deletingLastPathComponent()  // StrataTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // repository
            .appendingPathComponent("Fixtures/models")
    }
}

/// Expects `build` to throw an `invalidModel` error whose message and context name
/// `entity` and, when given, `property`, and whose message contains `fragment`.
func expectInvalidModel(
    entity: String,
    property: String? = nil,
    mentioning fragment: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ build: () throws -> ObjectModel
) {
    do {
        let model = try build()
        Issue.record("expected invalidModel, built a model with hash \(model.versionHash)",
                     sourceLocation: sourceLocation)
    } catch let error as StrataError {
        #expect(error.code == .invalidModel, "\(error)", sourceLocation: sourceLocation)
        // `contains("")` is false in Swift; an empty name is checked through the context.
        if !entity.isEmpty {
            #expect(error.message.contains(entity), "\(error.message)", sourceLocation: sourceLocation)
        }
        #expect(error.context["entity"] == entity, "\(error.context)", sourceLocation: sourceLocation)
        if let property {
            if !property.isEmpty {
                #expect(error.message.contains(property), "\(error.message)", sourceLocation: sourceLocation)
            }
            #expect(error.context["property"] == property, "\(error.context)", sourceLocation: sourceLocation)
        }
        if let fragment {
            #expect(error.message.contains(fragment), "\(error.message)", sourceLocation: sourceLocation)
        }
    } catch {
        Issue.record("expected StrataError, got \(error)", sourceLocation: sourceLocation)
    }
}
