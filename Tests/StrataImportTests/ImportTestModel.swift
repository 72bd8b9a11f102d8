import Foundation
import Strata
import StrataImport
@testable import StrataFuzzing

/// A model with every attribute type and each kind of relationship, for the decoder's
/// and writer's tests.
enum ImportTestModel {
    /// The import-line fuzz target's model (Sources/StrataFuzzing), so that the
    /// decoder's tests and its fuzzer judge lines against one model.
    static let model: ObjectModel = {
        guard let model = ImportLineFixture.model else { preconditionFailure("the import-line fixture model does not build") }
        return model
    }()
}

/// What a decoded line says, comparable: doubles by bit pattern (NaN included).
struct LineSummary: Equatable, CustomStringConvertible {
    var entity: String
    var names: [String]
    var values: [String]
    var links: [String]

    init(_ line: ImportLine) {
        entity = line.entity.name
        names = line.names
        values = line.values.map { attribute, value in
            if case .double(let d) = value { return "\(attribute.name)=double(\(d.bitPattern))" }
            return "\(attribute.name)=\(value)"
        }
        links = line.links.map { relationship, targets in "\(relationship.name)=\(targets)" }
    }

    var description: String { "\(entity) \(names) \(values) \(links)" }
}
