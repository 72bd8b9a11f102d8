import Foundation
import Testing
@testable import Strata

/// Record values a damaged or hostile store can hold: every varint length or count is
/// checked against the bytes left before it is converted or used (found by the
/// `object-record` fuzz target; the inputs are in Fuzz/Corpus/object-record/crash-*).
@Suite struct ObjectCodecHostileTests {
    static let u64max: [UInt8] = Array(repeating: 0xFF, count: 9) + [0x01]

    @Test(arguments: [
        ("field count of u64.max", [1] + u64max),
        ("binary length of u64.max", [1, 1, 1, 7] + u64max),
        ("composite length of u64.max", [1, 1, 1, 10] + u64max),
        ("string length of Int.max", [1, 1, 1, 5] + Array(repeating: 0xFF, count: 8) + [0x7F]),
        ("reference count of u64.max", [1, 1, 4] + u64max),
        ("blob index of u64.max", [1, 1, 2] + u64max + [0]),
        ("string length one past the end", [1, 1, 1, 5, 3, 0x61, 0x62]),
    ] as [(String, [UInt8])])
    func aLengthPastTheRecordIsCorruptNotATrap(label: String, value: [UInt8]) {
        let record = Record(key: RecordKey(7), sequence: 1, value: value)
        let error = #expect(throws: StrataError.self, "\(label)") { try ObjectCodec.decode(record) }
        #expect(error?.code == .corrupt, "\(label)")
    }

    @Test func lengthsThatFitStillDecode() throws {
        let record = Record(key: RecordKey(7), sequence: 1, value: [1, 2, 1, 5, 2, 0x61, 0x62, 1, 7, 0])
        let object = try ObjectCodec.decode(record)
        #expect(object.fields.count == 2)
        guard case .value(.string(let text)) = object.fields[0], case .value(.binary(let data)) = object.fields[1] else {
            Issue.record("fields decoded as \(object.fields)")
            return
        }
        #expect(text == "ab")
        #expect(data.isEmpty)
    }
}
