import Foundation

extension ObjectModel {
    /// Reads a model from a JSON model file's bytes (docs/MODEL.md) and validates it.
    ///
    /// ```swift
    /// let model = try ObjectModel(jsonData: Data(contentsOf: url))
    /// ```
    ///
    /// - Throws: `StrataError` with code `invalidModel` when the JSON does not follow
    ///   the format (the message gives the JSON path, such as
    ///   `entities[1].properties[0].type`), when the format version is not one this
    ///   release reads, or when the model is inconsistent.
    public init(jsonData: Data) throws {
        try self.init(jsonData: jsonData, path: nil)
    }

    /// Reads a model from a JSON model file and validates it.
    ///
    /// - Throws: `StrataError` with code `notFound` or `io` when the file cannot be
    ///   read, and `invalidModel` as ``init(jsonData:)`` does, with the file's path.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let missing = !FileManager.default.fileExists(atPath: url.path)
            throw StrataError(
                missing ? .notFound : .io,
                "Cannot read the model file: \(error.localizedDescription)",
                path: url.path)
        }
        try self.init(jsonData: data, path: url.path)
    }

    /// The model as a JSON model file (docs/MODEL.md): pretty-printed, keys sorted,
    /// options at their default left out. Reading it back gives an equal model.
    ///
    /// - Throws: `StrataError` with code `invalidModel` if encoding fails, which a
    ///   valid model does not cause.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            var data = try encoder.encode(ModelFile(self))
            data.append(UInt8(ascii: "\n"))
            return data
        } catch {
            throw StrataError(.invalidModel, "Cannot encode the model as JSON: \(error)")
        }
    }

    /// Writes the model as a JSON model file, atomically.
    ///
    /// - Throws: `StrataError` with code `io` when the file cannot be written.
    public func write(to url: URL) throws {
        let data = try jsonData()
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw StrataError(
                .io, "Cannot write the model file: \(error.localizedDescription)", path: url.path)
        }
    }

    private init(jsonData: Data, path: String?) throws {
        let file: ModelFile
        do {
            file = try JSONDecoder().decode(ModelFile.self, from: jsonData)
        } catch let error as DecodingError {
            throw StrataError(
                .invalidModel, "The model file is not valid: \(Self.describe(error))", path: path)
        } catch {
            throw StrataError(.invalidModel, "The model file is not valid JSON: \(error)", path: path)
        }
        guard file.formatVersion == ModelFile.currentFormatVersion else {
            throw StrataError(
                .invalidModel,
                "The model file has format version \(file.formatVersion); this release reads version \(ModelFile.currentFormatVersion)",
                path: path)
        }
        do {
            try self.init(version: file.version, entities: try file.entities.map { try $0.resolved() },
                          fetchRequestTemplates: try file.fetchRequestTemplates.map { try $0.resolved() })
        } catch var error as StrataError {
            error.path = path
            throw error
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func location(_ path: [any CodingKey]) -> String {
            let text = path.map { key in
                key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
            }.joined()
            let trimmed = text.hasPrefix(".") ? String(text.dropFirst()) : text
            return trimmed.isEmpty ? "the top level" : trimmed
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "the key '\(key.stringValue)' is missing at \(location(context.codingPath))"
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(location(context.codingPath))"
        case .valueNotFound(let type, let context):
            return "expected \(type), found null at \(location(context.codingPath))"
        case .dataCorrupted(let context):
            return "\(context.debugDescription) at \(location(context.codingPath))"
        @unknown default:
            return "\(error)"
        }
    }
}
