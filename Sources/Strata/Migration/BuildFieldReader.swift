import StrataLog

/// Reads the fields an in-place index build needs from an object record without
/// decoding the object: slots (``RecordFieldSlots``) for the current layout and for
/// each older layout whose record reads forward unchanged into those fields, so that a
/// store migrated before (whose records are mostly of an older layout) is read in place
/// too. A record read so is still held to its layout: its field count, and each
/// field's kind by the layout's rules. A record none of them can read — a layout from
/// which a wanted field needs rechecking or filling, an external binary among the
/// wanted fields — is left to the caller to decode whole, as is every record when no
/// field is wanted.
struct BuildFieldReader {
    private struct Reader {
        let layoutID: UInt32
        var slots: RecordFieldSlots
        /// By current field number, the slot of a wanted field (-1 for others).
        let slotOfNumber: [Int]
    }

    private var readers: [Reader]
    private var found = -1
    private let firstLayoutID: UInt32

    /// A reader of the current field numbers `wanted` of `shape`'s records.
    init(wanted: [Int], shape: StoreSchema.EntityShape) {
        firstLayoutID = shape.firstLayoutID
        func reader(layoutID: UInt32, numbers: [Int], rules: [FieldRule]) -> Reader {
            let slots = RecordFieldSlots(fields: numbers, rules: rules)
            var slotOfNumber = [Int](repeating: -1, count: (wanted.max() ?? -1) + 1)
            for (number, older) in zip(wanted, numbers) { slotOfNumber[number] = slots.slot(of: older) }
            return Reader(layoutID: layoutID, slots: slots, slotOfNumber: slotOfNumber)
        }
        guard !wanted.isEmpty else {
            readers = []
            return
        }
        var readers = [reader(layoutID: shape.layoutID, numbers: wanted, rules: shape.rules)]
        for plan in shape.forwardPlans where !plan.recheck {
            let sources = wanted.compactMap { $0 < plan.map.sources.count ? plan.map.sources[$0] : nil }
            guard sources.count == wanted.count else { continue }
            readers.append(reader(layoutID: plan.layoutID, numbers: sources, rules: plan.olderRules))
        }
        self.readers = readers
    }

    /// Loads `record`'s wanted fields; false when no reader can (decode it whole).
    ///
    /// - Throws: `.corrupt` for a record that does not hold to its layout.
    mutating func load(_ record: Record) throws -> Bool {
        found = -1
        try record.value.withUnsafeBytes { value in
            try record.blobs.withUnsafeBufferPointer { blobs in
                let view = RecordView(key: record.key, sequence: record.sequence, value: value, blobs: blobs)
                for i in readers.indices where try readers[i].slots.load(view, layoutID: readers[i].layoutID, firstLayoutID: firstLayoutID) {
                    found = i
                    return
                }
            }
        }
        return found >= 0
    }

    /// The current field `number` (one of those wanted) of the record loaded last.
    func field(_ number: Int) -> FieldValue {
        readers[found].slots.values[readers[found].slotOfNumber[number]]
    }
}
