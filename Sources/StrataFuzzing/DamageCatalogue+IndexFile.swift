/// An index file's fields (FORMAT.md §7): the footer, the data and term fences, each
/// data block's entries (key, sequence, kind, the four location fields, blob count and
/// references), each term block's terms, and the filter. An edit inside a block
/// recomputes that block's CRC (§7: every block ends with the CRC of its bytes) and the
/// footer's, so the damage passes every check a reader can make without the segment.
extension DamageCatalogue {
    static func indexFields(_ path: String, _ bytes: [UInt8], id: UInt32, facts: DamageFacts) -> [DamageField] {
        var c = DamageCursor(path: path, bytes: bytes)
        c.group = "idx"
        guard bytes.count >= 160 else { return [] }
        let footer = bytes.count - 160
        func handle(_ at: Int) -> (offset: Int, length: Int)? {
            guard let offset = c.peek(8, at: footer + at), let length = c.peek(8, at: footer + at + 8),
                  offset < UInt64(footer), length <= UInt64(footer) - offset, length >= 8 else { return nil }
            return (Int(offset), Int(length))
        }
        let dataFence = handle(104), termFence = handle(120), filter = handle(136)

        c.label = "idx \(id) footer"
        c.repairs = [.indexFooter]
        c.position = footer
        c.field("magic", 8, pattern: "footer.magic")
        c.field("version", 4, pattern: "footer.version")
        c.field("segmentID", 4, pattern: "footer.segmentID")
        c.field("storeUUID", 8, pattern: "footer.storeUUID")
        c.skip(8)
        for name in ["minKey", "maxKey", "minSequence", "maxSequence", "recordBytes", "entryCount", "liveCount", "tombstoneCount", "termCount",
                     "dataFence.offset", "dataFence.length", "termFence.offset", "termFence.length", "filter.offset", "filter.length"] {
            c.field(name, 8, pattern: "footer.\(name)")
        }
        c.field("segmentLength", 4, pattern: "footer.segmentLength")

        var dataBlocks: [(offset: Int, length: Int)] = []
        if let fence = dataFence {
            c.position = fence.offset
            c.repairs = [.indexBlock(start: fence.offset, length: fence.length), .indexFooter]
            c.label = "idx \(id) data fence"
            let count = c.field("count", 4, pattern: "dataFence.count") ?? 0
            for n in 0..<min(count, 10_000) where c.position + 20 <= fence.offset + fence.length - 4 {
                c.label = "idx \(id) data fence entry \(n)"
                c.field("lastKey", 8, pattern: "dataFence.lastKey")
                let offset = c.field("offset", 8, pattern: "dataFence.offset") ?? 0
                let length = c.field("length", 4, pattern: "dataFence.length") ?? 0
                if offset < UInt64(footer), length >= 8, length <= UInt64(footer) - offset { dataBlocks.append((Int(offset), Int(length))) }
            }
        }
        var termBlocks: [(offset: Int, length: Int)] = []
        if let fence = termFence {
            c.position = fence.offset
            c.repairs = [.indexBlock(start: fence.offset, length: fence.length), .indexFooter]
            c.label = "idx \(id) term fence"
            let count = c.field("count", 4, pattern: "termFence.count") ?? 0
            for n in 0..<min(count, 10_000) where c.position + 6 <= fence.offset + fence.length - 4 {
                c.label = "idx \(id) term fence entry \(n)"
                c.field("index", 4, pattern: "termFence.index")
                guard let length = c.field("valueLength", 2, pattern: "termFence.valueLength") else { break }
                termValue(&c, length: Int(length), pattern: "termFence.value")
                c.field("lastKey", 8, pattern: "termFence.lastKey")
                let offset = c.field("offset", 8, pattern: "termFence.offset") ?? 0
                let blockLength = c.field("length", 4, pattern: "termFence.length") ?? 0
                if offset < UInt64(footer), blockLength >= 8, blockLength <= UInt64(footer) - offset { termBlocks.append((Int(offset), Int(blockLength))) }
            }
        }
        for (b, block) in dataBlocks.enumerated() {
            c.position = block.offset
            c.repairs = [.indexBlock(start: block.offset, length: block.length), .indexFooter]
            c.label = "idx \(id) data block \(b)"
            let count = c.field("count", 4, pattern: "data.count") ?? 0
            let end = block.offset + block.length - 4
            for n in 0..<min(count, 10_000) where c.position + 35 <= end {
                let key = c.peek(8) ?? 0
                c.label = "idx \(id) data block \(b) entry \(n) (\(facts.describe(key: key)))"
                c.field("key", 8, pattern: "data.key")
                c.field("sequence", 8, pattern: "data.sequence")
                c.field("kind", 1, pattern: "data.kind")
                c.field("frameOffset", 4, pattern: "data.frameOffset")
                c.field("frameLength", 4, pattern: "data.frameLength")
                c.field("recordOffset", 4, pattern: "data.recordOffset")
                c.field("recordLength", 4, pattern: "data.recordLength")
                let blobs = c.field("blobCount", 2, pattern: "data.blobCount") ?? 0
                let entryLabel = c.label
                for r in 0..<blobs where c.position + 24 <= end {
                    c.label = "\(entryLabel) blobRef[\(r)]"
                    blobRef(&c, pattern: "data.blobRef")
                }
            }
        }
        for (b, block) in termBlocks.enumerated() {
            c.position = block.offset
            c.repairs = [.indexBlock(start: block.offset, length: block.length), .indexFooter]
            c.label = "idx \(id) term block \(b)"
            let count = c.field("count", 4, pattern: "term.count") ?? 0
            let end = block.offset + block.length - 4
            for n in 0..<min(count, 10_000) where c.position + 22 <= end {
                let index = c.peek(4) ?? 0
                c.label = "idx \(id) term block \(b) term \(n) (index \(String(index, radix: 16)))"
                c.field("index", 4, pattern: "term.index")
                guard let length = c.field("valueLength", 2, pattern: "term.valueLength") else { break }
                termValue(&c, length: Int(length), pattern: "term.value")
                c.field("key", 8, pattern: "term.key")
                c.field("sequence", 8, pattern: "term.sequence")
            }
        }
        if let filter {
            c.position = filter.offset
            c.repairs = [.indexBlock(start: filter.offset, length: filter.length), .indexFooter]
            c.label = "idx \(id) filter"
            c.field("probes", 1, pattern: "filter.probes")
            c.field("bitCount", 4, pattern: "filter.bitCount")
            // A few set bytes cleared: keys the file holds that the filter now excludes.
            // The first, middle and last of the set bytes.
            let set = (c.position..<max(c.position, filter.offset + filter.length - 4)).filter { bytes[$0] != 0 }
            for offset in Set([set.first, set.isEmpty ? nil : set[set.count / 2], set.last].compactMap { $0 }).sorted() {
                c.position = offset
                c.field("bits[\(offset - filter.offset - 5)]", 1, pattern: "filter.bits", mutations: .cleared)
            }
        }
        return c.fields
    }
}
