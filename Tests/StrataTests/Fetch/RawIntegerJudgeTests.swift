import Foundation
import StrataLog
import Testing
import StrataTestSupport
@testable import Strata

/// `RawIntegerJudge` reads integer fields straight from encoded records; whatever it
/// answers must be what decoding the fields answers, and on bytes that do not decode
/// it must leave the record to the decoding path (which names the damage) instead of
/// answering. Checked on real records cut short at every length and with every byte
/// changed to a few values.
@Suite("Fetch: integer tests judged on encoded records")
struct RawIntegerJudgeTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Row") {
                Attribute("name", .string, optional: true)
                Attribute("photo", .binary, optional: true)
                Attribute("salary", .int64, optional: true)
                Attribute("when", .date, optional: true)
                Attribute("level", .int16, optional: true)
                Attribute("id", .uuid, optional: true)
                Attribute("score", .double, optional: true)
            }
        }
    }

    /// The encoded values of a few rows, each with other fields present or nil.
    static func records(_ store: ObjectStore) throws -> [[UInt8]] {
        let context = store.newContext()
        var r = SeededRandom(seed: 7)
        for i in 0..<12 {
            let row = try context.insert("Row")
            if r.chance(70) { try row.setValue(.string(String(repeating: "x", count: r.int(in: 0...140))), forKey: "name") }
            if r.chance(50) { try row.setValue(.binary(Data(repeating: 1, count: r.int(in: 0...9))), forKey: "photo") }
            if i % 4 != 0 { try row.setValue(.int(Int64(r.int(in: -70_000...70_000))), forKey: "salary") }
            if r.chance(50) { try row.setValue(.date(Date(timeIntervalSinceReferenceDate: 5)), forKey: "when") }
            if r.chance(70) { try row.setValue(.int(Int64(r.int(in: -3...300))), forKey: "level") }
            if r.chance(50) { try row.setValue(.uuid(UUID()), forKey: "id") }
            if r.chance(50) { try row.setValue(.double(1.5), forKey: "score") }
        }
        try context.save()
        var values: [[UInt8]] = []
        for id in try store.newContext().fetchObjectIDs(FetchRequest(entityName: "Row")) {
            _ = try store.records.withRecord(id.key) { values.append(Array($0.value)) }
        }
        return values
    }

    /// The raw answer and the decoding path's (an error as nil, marked `threw`) for
    /// `bytes`; with a first sort key read with the predicate, its value each way.
    static func answers(_ fetch: CompiledFetch, _ bytes: [UInt8]) -> (raw: Bool?, decoded: Bool?, threw: Bool, firstRaw: Int64?, firstDecoded: FieldValue?) {
        bytes.withUnsafeBytes { value in
            let view = RecordView(key: RecordKey(1), sequence: 1, value: value, blobs: UnsafeBufferPointer(start: nil, count: 0))
            var first: Int64?
            let raw = fetch.rawJudge?.judge(value, layoutID: fetch.layoutID, firstLayoutID: fetch.firstLayoutID, read: fetch.firstSortSlot ?? -1, into: &first)
            do {
                let decoded = try fetch.judgeDecoded(view)
                return (raw, decoded, false, first, fetch.firstSortSlot.map { fetch.slots.values[$0] })
            } catch {
                return (raw, nil, true, first, nil)
            }
        }
    }

    @Test("cut short or with a byte changed, a record gets the decoded answer or none")
    func damagedRecords() throws {
        let store = try StoreUnderTest.inMemory(model: try Self.model())
        defer { try? store.close() }
        let records = try Self.records(store)
        let shape = try #require(store.schema.shapes["Row"])
        let predicates = ["salary >= -5000 AND salary <= 40000", "salary != 12", "level < 100 AND salary > -3", "level == 7"]
        var compared = 0, answered = 0
        // Sorted by an integer, that field is read with the tests (the top-k's early
        // rejection): tested by the predicate or not.
        let sorts: [[SortKey]] = [[], [.descending("salary")], [.ascending("level"), .ascending("name")]]
        for format in predicates {
            for sortKeys in sorts {
                var request = FetchRequest(entityName: "Row")
                request.predicate = try Strata.Predicate(format: format)
                request.sortKeys = sortKeys
                let fetch = try CompiledFetch(request, shape: shape)
                #expect(fetch.rawJudge?.readsEverySlot == true, "\(format) sorted by \(sortKeys.map(\.keyPath)) is not judged raw")
                for record in records {
                    var variants: [[UInt8]] = (0..<record.count).map { Array(record[..<$0]) }
                    for i in record.indices {
                        for byte: UInt8 in [0, 1, 2, 5, 0x7F, 0x80, 0xFF] where record[i] != byte {
                            var changed = record
                            changed[i] = byte
                            variants.append(changed)
                        }
                    }
                    variants.append(record)
                    for bytes in variants {
                        let answer = Self.answers(fetch, bytes)
                        compared += 1
                        guard let raw = answer.raw else { continue }
                        answered += 1
                        #expect(!answer.threw, "\(format): the raw judge answered \(raw) where decoding throws, bytes \(bytes)")
                        #expect(raw == answer.decoded, "\(format): raw \(raw), decoded \(String(describing: answer.decoded)), bytes \(bytes)")
                        if raw, let decodedFirst = answer.firstDecoded {
                            let rawFirst: FieldValue = answer.firstRaw.map { .value(.int($0)) } ?? .null
                            #expect(rawFirst == decodedFirst, "\(format) sorted by \(sortKeys.map(\.keyPath)): first sort value \(rawFirst) raw, \(decodedFirst) decoded")
                        }
                    }
                    #expect(Self.answers(fetch, record).raw != nil, "\(format): an intact record was left to decoding")
                }
            }
        }
        // Most damage leaves the tested field readable: the judge must have answered often.
        #expect(answered > compared / 4, "\(answered) of \(compared)")
    }
}
