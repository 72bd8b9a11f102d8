import Foundation
import Testing
@testable import Strata
import StrataLog

/// Helpers shared by the migration tests.
enum MigrationFixtures {
    static var directory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Migration
            .deletingLastPathComponent()  // StrataTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // repository
            .appendingPathComponent("Fixtures/models")
    }

    /// A committed model file, by name without `.json`.
    static func model(_ name: String) throws -> ObjectModel {
        try ObjectModel(contentsOf: directory.appendingPathComponent(name + ".json"))
    }
}

/// Expects inference from `source` to `destination` to fail with `migrationInferenceRefused`
/// whose message and `problems` context hold every expected `Entity.property: reason`.
@discardableResult
func expectRefusal(
    from source: ObjectModel, to destination: ObjectModel, problems expected: [String],
    sourceLocation: SourceLocation = #_sourceLocation
) -> StrataError? {
    do {
        let mapping = try MappingModel.inferred(from: source, to: destination)
        Issue.record("expected a refusal, inferred \(mapping.entityMappings.map(\.name))", sourceLocation: sourceLocation)
        return nil
    } catch let error as StrataError {
        #expect(error.code == .migrationInferenceRefused, "\(error)", sourceLocation: sourceLocation)
        // The first problem is named in the context too, with both hashes.
        if let first = expected.first {
            let place = error.context["property"].map { "\(error.context["entity"] ?? "").\($0)" } ?? error.context["entity"] ?? ""
            #expect(first.hasPrefix(place + ": "), "\(error.context)", sourceLocation: sourceLocation)
        }
        #expect(error.context["sourceHash"] == source.versionHash, sourceLocation: sourceLocation)
        #expect(error.context["destinationHash"] == destination.versionHash, sourceLocation: sourceLocation)
        let listed = error.context["problems"]?.split(separator: "\n").map(String.init) ?? []
        #expect(listed == expected, "\(error)", sourceLocation: sourceLocation)
        for problem in expected {
            #expect(error.message.contains(problem), "\(error.message)", sourceLocation: sourceLocation)
        }
        #expect(MappingModel.inferenceProblems(from: source, to: destination).map(\.description) == expected,
                sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension EntityMapping {
    /// `name ← expression` for each attribute mapping, by name, for compact checks.
    var attributeSummary: [String: String] {
        Dictionary(uniqueKeysWithValues: attributeMappings.map { ($0.name, $0.description) })
    }
    var relationshipSummary: [String: String] {
        Dictionary(uniqueKeysWithValues: relationshipMappings.map { ($0.name, $0.description) })
    }
}
