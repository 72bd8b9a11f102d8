import Foundation
import StrataLog

/// The seed corpus of each target, made from the store template and the fixtures: the
/// files a real store holds, the record values in them, predicates from the docs and
/// tests. `make fuzz-seeds` writes them to `Fuzz/Corpus/<target>/` (the fuzzer adds
/// its own finds there as it runs).
public enum FuzzSeeds {
    /// The seeds of `target`; `modelFiles` are the JSON model fixtures.
    public static func seeds(for target: FuzzTarget, modelFiles: [[UInt8]]) -> [[UInt8]] {
        let plain = StoreTemplate.files[false] ?? [:]
        let compressed = StoreTemplate.files[true] ?? [:]
        let all = [plain, compressed]
        func files(_ suffix: String) -> [[UInt8]] {
            all.flatMap { store in store.keys.sorted().filter { $0.hasSuffix(suffix) }.compactMap { store[$0] } }
        }
        switch target {
        case .segment:
            return files(".seg").map { [1] + $0 }
        case .recordsBlock:
            return Array(recordsBlocks(files(".seg")).prefix(12))
        case .index:
            return (files(".idx") + files(".hint")).map { [0] + $0 }
        case .manifest:
            return files("MANIFEST").map { [0] + $0 }
        case .blob:
            let blobFiles = files(".blob")
            var seeds = blobFiles.map { [0] + $0 }
            if let first = blobFiles.first, first.count >= 80 {
                // A reference to the first entry: offset 48, its stored length and data CRC.
                let stored = Array(first[56..<64]), crc = Array(first[72..<76])
                seeds.append([2] + be(48) + Array(stored.reversed()) + [0, 0, 0, 0] + Array(crc.reversed()) + first)
            }
            return seeds
        case .objectRecord:
            return Array(recordsBlocks(files(".seg")).flatMap { (try? FuzzDecoders.decodeRecordsBlock($0)) ?? [] }
                .filter { !$0.isTombstone }.map(\.value).prefix(16))
        case .store:
            return [[0], [1], [0, 3, 0, 0, 0, 0, 0, 1], [0, 5, 0, 1, 0, 2, 0, 9, 0, 0, 0, 3], [2, 2, 0, 0, 0, 1, 0, 7], [1, 4, 0, 2, 0, 6, 0, 30, 0, 5, 0, 3]]
        case .model:
            return modelFiles + [PredicateFixture.model, StoreTemplate.model].compactMap { try? $0?.jsonData() }.map { [UInt8]($0) }
        case .predicate:
            return predicates.map { Array($0.utf8) }
        case .importLine:
            return ImportLineFixture.seeds.map { Array($0.utf8) }
        case .mapping:
            return [[], [1, 2, 3, 4, 5, 6, 7, 8], [0, 3, 0, 1, 2, 0, 2, 9, 0, 4, 3, 1, 0, 0, 7, 0, 2, 4, 5, 1, 0, 0, 2, 0, 8, 0, 1, 0, 3],
                    Array(repeating: 0x41, count: 64), Array((0..<96).map { UInt8(truncatingIfNeeded: $0 * 37) })]
        }
    }

    static func be(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(7 - $0))) } }

    /// The raw payloads of uncompressed records frames.
    static func recordsBlocks(_ segments: [[UInt8]]) -> [[UInt8]] {
        var blocks: [[UInt8]] = []
        for segment in segments {
            var position = 48
            while position + 12 <= segment.count {
                let length = Int(Checksums.read32(segment, at: position))
                let end = position + 12 + length
                guard end <= segment.count else { break }
                if segment[position + 8] == 1, segment[position + 9] == 0 { blocks.append(Array(segment[position + 12..<end])) }
                position = end
            }
        }
        return blocks
    }

    static let predicates = [
        "name == 'Ann'", "age >= 18 AND name IN {'Ann Lee', 'Bo'} AND age BETWEEN {20, 40}",
        "NOT (age IN {1, 2} OR name == 'x')", "ANY reports.name BEGINSWITH[cd] 'jo'", "ALL reports.age > 100",
        "NONE reports.age > 0", "reports.@count > 3", "department.name == %@", "age == %@ AND salary < %@",
        "active == %@", "name LIKE[c] %@", "name MATCHES '^[A-Z].*'", "name CONTAINS[cd] 'ü'", "name ENDSWITH 'x'",
        "hired > CAST(1000000, 'NSDate')", "photo == nil", "site != nil", "manager.manager.name == 'Ann'",
        "SUBQUERY(reports, $r, $r.age > 30).@count > 0", "reports.@avg.age > 1.5e1", "reports.@max.salary < -1",
        "TRUEPREDICATE", "FALSEPREDICATE", "id == nil OR (age < 0x1F && salary >= .5)", "%K == %@",
        "department.budget > 100.25", "name ==[n] \"Zo\\u00eb\"", "age BETWEEN {$low, $high}", "!(active = NO) || age <> 3",
    ]
}
