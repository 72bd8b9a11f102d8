import Foundation
import Testing
@testable import Strata
import StrataLog
import StrataTestSupport

/// A value that is not JSON: a tiny "image" whose transformer writes a custom binary
/// encoding (a magic number, width, height, pixels).
struct TinyImage: Equatable, Sendable {
    var width: UInt8
    var height: UInt8
    var pixels: [UInt8]

    static let transformer = ClosureValueTransformer<TinyImage>(
        encode: { image in Data([0x89, 0x54, image.width, image.height] + image.pixels) },
        decode: { data in
            let bytes = [UInt8](data)
            guard bytes.count >= 4, bytes[0] == 0x89, bytes[1] == 0x54 else {
                throw StrataError(.typeMismatch, "not a TinyImage")
            }
            return TinyImage(width: bytes[2], height: bytes[3], pixels: Array(bytes[4...]))
        })

    /// Bytes the transformer writes for this image: what the store must keep exactly.
    var encoded: Data { Data([0x89, 0x54, width, height] + pixels) }
}

struct Preferences: Codable, Equatable, Sendable {
    var theme: String
    var fontSize: Int
}

/// Transformable attributes: a named, registered transformer between a value and the
/// bytes stored, as Core Data's `valueTransformerName`.
@Suite("Model: value transformers")
struct ValueTransformerTests {
    /// A model whose customer has a TinyImage avatar (external storage) under a
    /// transformer name of the caller's, and JSON preferences.
    static func model(_ version: String = "1", transformer: String, extra: Bool = false) throws -> ObjectModel {
        try ObjectModel(version: version) {
            Entity("Customer") {
                Attribute("name", .string)
                Attribute("avatar", .transformable, optional: true, externalStorage: true).valueTransformer(transformer)
                Attribute("preferences", .transformable, optional: true)
                if extra { Attribute("loyalty", .int64, default: .int(0)) }
            }
        }
    }

    static func register(_ name: String) throws {
        try ValueTransformers.register(TinyImage.transformer, named: name)
    }

    @Test func aTransformedValueIsStoredAsTheTransformerWritesItAndReadsBack() throws {
        let name = "TinyImage-\(UUID().uuidString.prefix(8))"
        try Self.register(name)
        defer { ValueTransformers.unregister(named: name) }
        let dir = try TemporaryDirectory("transformer-roundtrip")
        defer { dir.remove() }
        let path = dir.appending("customers.strata")
        let model = try Self.model(transformer: name)
        let small = TinyImage(width: 2, height: 1, pixels: [10, 20])
        let large = TinyImage(width: 100, height: 100, pixels: (0..<10_000).map { UInt8($0 % 251) })

        var store = try ObjectStore(at: path, model: model)
        var context = store.newContext()
        for (index, image) in [small, large].enumerated() {
            let customer = try context.insert("Customer")
            try customer.setValue("c\(index)", forKey: "name")
            try customer.setTransformedValue(image, forKey: "avatar")
            try customer.setTransformedValue(Preferences(theme: "dark", fontSize: 12 + index), forKey: "preferences")
        }
        let bare = try context.insert("Customer")
        try bare.setValue("bare", forKey: "name")
        try context.save()
        try store.close()

        store = try ObjectStore(at: path, model: model)
        context = store.newContext()
        var request = FetchRequest(entityName: "Customer")
        request.sortKeys = [.ascending("name")]
        let customers = try context.fetch(request)
        #expect(try customers.map { try $0.string("name") } == ["bare", "c0", "c1"])
        #expect(try customers[1].transformedValue(forKey: "avatar", as: TinyImage.self) == small)
        #expect(try customers[2].transformedValue(forKey: "avatar", as: TinyImage.self) == large)
        // The bytes are the transformer's, exactly; the large one went to the blob area.
        #expect(try customers[1].data("avatar") == small.encoded)
        #expect(try customers[2].data("avatar") == large.encoded)
        #expect(store.statistics.blobBytesRead > 0, "the large one was read from the blob area")
        #expect(try customers[2].transformedValue(forKey: "preferences", as: Preferences.self) == Preferences(theme: "dark", fontSize: 13))
        #expect(try customers[2].data("preferences") == Data(#"{"fontSize":13,"theme":"dark"}"#.utf8))
        #expect(try customers[0].transformedValue(forKey: "avatar", as: TinyImage.self) == nil)

        // Clearing through the accessor, and errors naming the attribute and transformer.
        try customers[1].setTransformedValue(nil, forKey: "avatar")
        #expect(try customers[1].value(forKey: "avatar") == .null)
        let wrongType = #expect(throws: StrataError.self) { try customers[2].setTransformedValue("not an image", forKey: "avatar") }
        #expect(wrongType?.code == .typeMismatch)
        #expect(wrongType?.message.contains("Customer.avatar (transformer '\(name)')") == true, "\(String(describing: wrongType))")
        let notDecoding = #expect(throws: StrataError.self) {
            _ = try customers[2].transformedValue(forKey: "preferences", as: TinyImageBox.self)
        }
        #expect(notDecoding?.code == .typeMismatch)
        #expect(notDecoding?.message.contains("Customer.preferences") == true)
        let notTransformable = #expect(throws: StrataError.self) {
            _ = try customers[2].transformedValue(forKey: "name", as: String.self)
        }
        #expect(notTransformable?.code == .typeMismatch)
        try store.close()
    }

    @Test func anUnregisteredTransformerIsAnErrorAtOpenNamingTheAttributeAndTheName() throws {
        let dir = try TemporaryDirectory("transformer-missing")
        defer { dir.remove() }
        let path = dir.appending("customers.strata")
        let name = "NeverRegistered-\(UUID().uuidString.prefix(8))"
        let error = #expect(throws: StrataError.self) { _ = try ObjectStore(at: path, model: Self.model(transformer: name)) }
        #expect(error?.code == .invalidModel)
        #expect(error?.message.contains("Customer.avatar uses the value transformer '\(name)', which is not registered") == true,
                "\(String(describing: error))")
        #expect(error?.context["entity"] == "Customer" && error?.context["property"] == "avatar")
        #expect(error?.context["valueTransformerName"] == name)
        #expect(!FileManager.default.fileExists(atPath: path), "nothing was created")

        // A tool that moves bytes without decoding them may open anyway.
        var options = StoreOptions()
        options.requiresValueTransformers = false
        let store = try ObjectStore(at: path, model: Self.model(transformer: name), options: options)
        let context = store.newContext()
        let customer = try context.insert("Customer")
        try customer.setValue("raw", forKey: "name")
        try customer.setValue(.binary(Data([1, 2])), forKey: "avatar")
        #expect(throws: StrataError.self) { _ = try customer.transformedValue(forKey: "avatar", as: TinyImage.self) }
        try context.save()
        try store.close()
    }

    @Test func theRegistryRefusesTheBuiltInNameAndEmptyNamesAndIsSafeAcrossTasks() async throws {
        #expect(throws: StrataError.self) { try ValueTransformers.register(TinyImage.transformer, named: JSONValueTransformer.name) }
        #expect(throws: StrataError.self) { try ValueTransformers.register(TinyImage.transformer, named: "") }
        #expect(throws: StrataError.self) { try ValueTransformers.register(TinyImage.transformer, named: "two words") }
        let prefix = "Concurrent-\(UUID().uuidString.prefix(8))-"
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask {
                    try ValueTransformers.register(TinyImage.transformer, named: prefix + "\(index)")
                    _ = ValueTransformers.transformer(named: prefix + "\(index / 2)")
                    _ = ValueTransformers.registeredNames
                }
            }
            try await group.waitForAll()
        }
        let names = ValueTransformers.registeredNames.filter { $0.hasPrefix(prefix) }
        #expect(names.count == 64)
        for name in names { ValueTransformers.unregister(named: name) }
        #expect(ValueTransformers.transformer(named: JSONValueTransformer.name) != nil)
        ValueTransformers.unregister(named: JSONValueTransformer.name)
        #expect(ValueTransformers.transformer(named: JSONValueTransformer.name) != nil, "the built-in one stays")
    }

    @Test func theTransformerNameCountsInTheHashAndModelsWithoutOneKeepTheirs() throws {
        let a = try Self.model(transformer: "A")
        let b = try Self.model(transformer: "B")
        #expect(a.versionHash != b.versionHash)
        #expect(a.canonicalDescription.contains(
            "attribute avatar type=transformable optional=1 external=1 transformer=A indexed=0 unique=0\n"))
        #expect(a.canonicalDescription.contains(
            "attribute preferences type=transformable optional=1 external=0 transformer=JSON indexed=0 unique=0\n"))
        #expect(a.canonicalDescription.contains("attribute name type=string optional=0 external=0 indexed=0 unique=0\n"))
        // The version 1 text (what version-1 stores record) of a model without a
        // transformable attribute is pinned.
        #expect(a.legacyCanonicalDescription.contains("attribute name type=string optional=0 external=0\n"))
        // Stated with the name or left to the default: the same model.
        let implicit = try ObjectModel(version: "1") { Entity("E") { Attribute("p", .transformable) } }
        let explicit = try ObjectModel(version: "1") { Entity("E") { Attribute("p", .transformable).valueTransformer("JSON") } }
        #expect(implicit == explicit && implicit.versionHash == explicit.versionHash)
        // Pinned: a transformable line, in version 2 of the text (the one with the
        // index flags) and in version 1.
        #expect(implicit.canonicalDescription == """
            strata-model-v2
            entity E abstract=0 parent=-
            attribute p type=transformable optional=0 external=0 transformer=JSON indexed=0 unique=0

            """)
        #expect(implicit.legacyCanonicalDescription == """
            strata-model-v1
            entity E abstract=0 parent=-
            attribute p type=transformable optional=0 external=0 transformer=JSON

            """)
    }

    @Test func theModelFileCarriesTheTransformerNameAndRefusesItOnOtherTypes() throws {
        let model = try Self.model(transformer: "TinyImage")
        let json = String(decoding: try model.jsonData(), as: UTF8.self)
        #expect(json.contains(#""valueTransformerName" : "TinyImage""#))
        #expect(json.contains(#""type" : "transformable""#))
        let read = try ObjectModel(jsonData: try model.jsonData())
        #expect(read == model && read.versionHash == model.versionHash)

        let wrong = Data("""
            {"formatVersion": 1, "version": "1", "entities": [{"name": "E", "properties": [
              {"kind": "attribute", "name": "p", "type": "string", "valueTransformerName": "TinyImage"}]}]}
            """.utf8)
        let error = #expect(throws: StrataError.self) { try ObjectModel(jsonData: wrong) }
        #expect(error?.code == .invalidModel)
        #expect(error?.message.contains("E.p") == true && error?.message.contains("transformable attributes only") == true,
                "\(String(describing: error))")
        let transformableDefault = Data("""
            {"formatVersion": 1, "version": "1", "entities": [{"name": "E", "properties": [
              {"kind": "attribute", "name": "p", "type": "transformable", "default": "AQID"}]}]}
            """.utf8)
        let withDefault = try ObjectModel(jsonData: transformableDefault)
        #expect(withDefault.entity(named: "E")?.attributesByName["p"]?.defaultValue == .binary(Data([1, 2, 3])))
        #expect(withDefault.entity(named: "E")?.attributesByName["p"]?.valueTransformerName == "JSON")
    }
}

/// A Decodable the preferences' JSON does not decode as.
struct TinyImageBox: Decodable { var width: Int }
