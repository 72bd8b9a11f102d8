import Foundation
import StrataImport
import Testing

/// `JSONLineWriter` writes what `JSONLineCoder.encode` (JSONEncoder) writes, byte for byte.
@Suite struct JSONLineWriterTests {
    private func written(_ value: JSONValue) throws -> String {
        var writer = JSONLineWriter()
        try writer.append(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private func encoded(_ value: JSONValue) throws -> String {
        String(decoding: try JSONLineCoder().encode(value), as: UTF8.self)
    }

    @Test func doublesAsTheEncoderWritesThem() throws {
        var generator = SplitMix(seed: 42)
        var samples: [Double] = [0, -0.0, 1, -1, 0.1, 1e15, 1e15 - 1, 1e16, 9_007_199_254_740_993, 123_456_789.125, 1e-7,
                                 5e300, -2.5e-308, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 90_000, 1.0 / 3]
        for _ in 0..<5_000 {
            samples.append(Double(bitPattern: generator.next()))
            samples.append(Double(Int64(bitPattern: generator.next()) >> (generator.next() % 64)))
            samples.append(Double(generator.next() % 1_000_000) / 100)
        }
        for sample in samples where sample.isFinite {
            #expect(try written(.number(sample)) == encoded(.number(sample)), "\(sample)")
        }
    }

    @Test func integersAsTheEncoderWritesThem() throws {
        var generator = SplitMix(seed: 7)
        var samples: [Int64] = [0, 1, -1, 9, 10, -10, .max, .min]
        for _ in 0..<2_000 { samples.append(Int64(bitPattern: generator.next()) >> (generator.next() % 64)) }
        for sample in samples {
            #expect(try written(.integer(sample)) == encoded(.integer(sample)), "\(sample)")
        }
    }

    @Test func stringsEscapedAsTheEncoderEscapesThem() throws {
        var every = ""
        for scalar in 0..<0x80 { every.unicodeScalars.append(Unicode.Scalar(UInt8(scalar))) }
        let samples = [every, "", "plain", "é 😀 \u{2028}\u{2029}", "a/b\\c\"d", "\u{7F}\u{80}\u{FFFF}", "e\u{301}"]
        for sample in samples {
            #expect(try written(.string(sample)) == encoded(.string(sample)), "\(sample.debugDescription)")
        }
    }

    @Test func nestedValuesAsTheEncoderWritesThem() throws {
        let samples: [JSONValue] = [
            .object(["@id": .string("strata://s/E/1")]),
            .object(["@base64": .string("AAEC")]),
            .array([.object(["@id": .string("strata://s/E/1")]), .object(["@id": .string("strata://s/E/2")])]),
            .object(["b": .integer(1), "a": .array([.null, .bool(true)]), "é": .number(0.5), "B": .string("x")]),
            .array([.array([.integer(1)]), .object(["z": .null, "y": .null])]),
            .object(["k": .object(["x": .null])]),
            .array([]), .object([:]),
        ]
        for sample in samples {
            #expect(try written(sample) == encoded(sample), "\(sample)")
        }
    }

    @Test func keyOrderIsTheEncoders() throws {
        let keys = ["salary", "@id", "name", "Zeta", "_x", "a10", "a9", "@entity", "émile", "department"]
        let order = try JSONLineWriter.keyOrder(keys)
        var writer = JSONLineWriter()
        writer.append(raw: "{")
        for (position, index) in order.enumerated() {
            if position > 0 { writer.append(raw: ",") }
            writer.appendKey(keys[index])
            try writer.append(.integer(Int64(index)))
        }
        writer.append(raw: "}")
        var object: [String: JSONValue] = [:]
        for (index, key) in keys.enumerated() { object[key] = .integer(Int64(index)) }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == (try encoded(.object(object))))
    }
}
