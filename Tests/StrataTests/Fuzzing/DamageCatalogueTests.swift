import Foundation
import Testing
import StrataFuzzing

/// The structure-aware corruption test (`DamageCampaign`, docs/FUZZING.md): a small
/// store damaged one field at a time with its checksums recomputed, each case judged
/// against the untouched store. A damaged store may refuse to open or refuse a read; it
/// must never answer wrongly.
///
/// By default a sample: at most `perCategory` cases of each category, the same every
/// run. `STRATA_DAMAGE_FULL=1` runs every case of both templates (uncompressed and
/// LZ4; `make fuzz-damage`), `STRATA_DAMAGE_FILTER=text` the cases whose edit or
/// category contains `text` (all of them), `STRATA_DAMAGE_TRACE=1` prints each case,
/// `STRATA_DAMAGE_REPORT=path` writes the whole summary there.
@Suite struct DamageCatalogueTests {
    /// Fields (substrings of a case's category) whose edits may still make a read
    /// answer wrongly in the default mode while `verify` reports the damage: the reads
    /// of docs/FORMAT.md §4.8's trust model — `count` from the manifest's counters,
    /// lookups answered by an index file's entries, terms, fences, filter and footer
    /// ranges alone, and a record whose own terms and fields disagree (lookups answer
    /// by the terms, reads by the fields). Paranoid mode refuses every one at open.
    static let allowlist: [String] = [
        "MANIFEST counters.",
        "idx data.", "idx dataFence.", "idx termFence.", "idx term.", "idx filter.", "idx footer.",
        "segment record.term.", "segment object.field[toOne].reference",
        "active segment record.key", "active segment record.kind",
    ]

    /// Fields whose edits nothing in a format-3 store can tell from what was written,
    /// so `verify` finds them sound too (FORMAT.md §4.8): the active segment's last
    /// transaction made to look torn (a frame length past the end) is cut as a torn
    /// tail is.
    static let undetectable: [String] = ["active segment frame.length"]

    static let perCategory = 6

    @Test func everyDamagedFieldIsRefusedOrReadsAsWritten() throws {
        let summary = DamageCampaign.run(.fromEnvironment(perCategory: Self.perCategory))
        if let path = ProcessInfo.processInfo.environment["STRATA_DAMAGE_REPORT"], !path.isEmpty {
            try Data(summary.description.utf8).write(to: URL(fileURLWithPath: path))
        }
        print("damage catalogue: \(summary.cases) cases\n" + summary.table(onlyFindings: true))
        #expect(summary.harnessProblems.isEmpty, "\(summary.harnessProblems.joined(separator: "\n"))")
        #expect(summary.cases > 0)
        let silent = summary.silentWrong.filter { finding in !Self.undetectable.contains { finding.category.contains($0) } }
        #expect(silent.isEmpty, "\(silent.count) cases read wrong while verify finds the store sound:\n\(silent.prefix(40).map(\.description).joined(separator: "\n"))")
        let wrong = summary.findings(notMatching: Self.allowlist).filter { $0.outcome != .silentWrong }
        #expect(wrong.isEmpty, "\(wrong.count) cases not fine:\n\(wrong.prefix(40).map(\.description).joined(separator: "\n"))")
    }

    /// The catalogue reaches what the test is for: record fields and object values
    /// behind recomputed checksums, edges, index blocks, both layouts, the counters and
    /// the object layer's metadata.
    @Test func theCatalogueReachesEveryKindOfField() {
        let catalogue = DamageCampaign.catalogue(.init(variants: [false, true]))
        let categories = Set(catalogue.map(\.category))
        let sample = DamageCampaign.catalogue(.init(perCategory: Self.perCategory)).count
        print("damage catalogue: \(catalogue.count) cases in \(categories.count) categories, \(sample) in the sample")
        for missing in [
            "MANIFEST counters.prefix.liveKeys", "MANIFEST counters.blob.liveBytes", "MANIFEST counters.segment.liveBytes",
            "MANIFEST metadata.valueLength", "sealed segment record.sequence", "active segment record.key",
            "sealed segment commit.recordCount", "sealed segment seal.maxSequence", "active segment commit.frameCount",
            "sealed segment object.layoutID", "active segment object.layoutID", "sealed segment object.field[string].kind",
            "sealed segment object.field[toOne].reference", "sealed segment object.field[binary].blob.rawLength",
            "sealed segment edge.owner", "active segment edge.memberPosition", "sealed segment counter.nextSerial",
            "sealed segment record.blobRef.offset", "sealed segment record.term.index",
            "idx footer.entryCount", "idx data.kind", "idx data.recordOffset", "idx data.blobRef.checksum", "idx term.key",
            "idx dataFence.lastKey", "idx termFence.lastKey", "idx filter.bits", "sealed blob entry.rawLength",
            "metadata strata.schema tag", "metadata strata.edges tag", "metadata strata.layouts entities.*.layouts[].fields[].id",
            "metadata strata.layouts entities.*.layouts[].fields[].fill", "metadata strata.modelHash removed", "metadata strata.model removed",
            "lz4 sealed segment frame.lz4.rawLength", "lz4 sealed blob entry.flags",
        ].filter({ !categories.contains($0) }) {
            Issue.record("no case edits \(missing)")
        }
    }
}
