import StrataLog

/// A predicate of plain integer tests (``IntegerTest``) judged on a record's encoded
/// value (docs/FORMAT.md §11.1) without decoding it: the tested fields' varints are
/// read where they lie, the fields before them skipped by their lengths, and no
/// `Value` or `FieldValue` is made. Decoding each tested field into a `Value` slot (an
/// enum whose old payload is released on every write) and walking the reader's checked
/// calls would cost more than the test itself.
///
/// It answers only what it is sure of. Anything else — a record of another layout or
/// codec version, a tested field that is not a plain integer or is null by value, a
/// field tag or value kind it does not know, bytes that end early — answers nil, and
/// the caller judges the record the general way, which decides those cases and names
/// any damage itself. So the two paths cannot disagree on a record this
/// one answers: it reads the same bytes by the same rules, for the subset it accepts.
struct RawIntegerJudge {
    /// Per field of the layout, in order: its rule (``FieldRule``) — a record is
    /// answered for only when every field holds to its rule and nothing follows the
    /// last — and the slot its value is read into (-1: no test reads it): one array
    /// read once per field, the walk's hottest load.
    private let steps: [Step]
    private let tests: [IntegerTest]
    private let slotCount: Int
    /// Whether it reads every slot of the fetch's `slots` (the tests' fields, and an
    /// integer first sort key's). When not (another scalar first sort key is read
    /// with the predicate), a record that passes still has its slots loaded the
    /// general way: only matches pay for it.
    let readsEverySlot: Bool

    /// A judge for `tests`, whose slots are those of `slots` (the fields they name);
    /// `integerSlot` is one more slot it reads (an integer attribute's: the first sort
    /// key), handed back by ``judge(_:layoutID:firstLayoutID:read:)``.
    init?(tests: [IntegerTest], slots: RecordFieldSlots, integerSlot: Int? = nil) {
        guard !tests.isEmpty else { return nil }
        // Compiled for every fetch: the slots read are marked in the one array the
        // judge keeps, not gathered in a set first.
        var steps = slots.rules.map { Step(rule: $0, slot: -1) }
        var readCount = 0
        for (number, slot) in slots.slotOfField.enumerated() where slot >= 0 && (slot == integerSlot || tests.contains { $0.slot == slot }) {
            // A field past the layout's last is never in a record that holds to it.
            guard number < steps.count else { return nil }
            steps[number].slot = Int32(slot)
            readCount += 1
        }
        self.steps = steps
        self.tests = tests
        self.slotCount = slots.values.count
        self.readsEverySlot = readCount == slots.values.count
    }

    /// Whether `value` passes every test; nil when the general path must decide.
    func judge(_ value: UnsafeRawBufferPointer, layoutID: UInt32, firstLayoutID: UInt32) -> Bool? {
        var unused: Int64?
        return judge(value, layoutID: layoutID, firstLayoutID: firstLayoutID, read: -1, into: &unused)
    }

    /// ``judge(_:layoutID:firstLayoutID:)``, and the value of slot `read` (nil for a
    /// null field) of a record that passes, when `read` is a slot this judge reads.
    func judge(_ value: UnsafeRawBufferPointer, layoutID: UInt32, firstLayoutID: UInt32, read: Int, into readValue: inout Int64?) -> Bool? {
        // A few slots (nearly every predicate) live in a tuple on this frame, so the
        // judge can be inlined into its caller: through a temporary allocation it would
        // be a closure called with eight arguments per record.
        if slotCount <= 4 {
            var inline = (Slot(), Slot(), Slot(), Slot())
            return withUnsafeMutablePointer(to: &inline) { tuple in
                tuple.withMemoryRebound(to: Slot.self, capacity: 4) { first in
                    judge(value, layoutID: layoutID, firstLayoutID: firstLayoutID, read: read, into: &readValue,
                          slots: UnsafeMutableBufferPointer(start: first, count: slotCount))
                }
            }
        }
        return withUnsafeTemporaryAllocation(of: Slot.self, capacity: slotCount) { slots in
            for i in 0..<slotCount { slots[i] = Slot() }
            return judge(value, layoutID: layoutID, firstLayoutID: firstLayoutID, read: read, into: &readValue, slots: slots)
        }
    }

    /// One field's rule and slot.
    private struct Step {
        var rule: FieldRule
        var slot: Int32
    }

    /// Per slot: `state` 0 not yet seen (a field past the record's count: null), 1 an
    /// integer, 2 null by its field tag.
    private struct Slot {
        var state: UInt8 = 0
        var value: Int64 = 0
    }

    /// The judge proper, over the slots the caller made.
    @inline(__always)
    private func judge(_ value: UnsafeRawBufferPointer, layoutID: UInt32, firstLayoutID: UInt32, read: Int, into readValue: inout Int64?,
                       slots: UnsafeMutableBufferPointer<Slot>) -> Bool? {
        var p = 0
        let end = value.count
        @inline(__always) func varint() -> UInt64? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while p < end {
                let byte = value[p]
                p += 1
                guard shift < 64 else { return nil }
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return result }
                shift += 7
            }
            return nil
        }
        guard p < end else { return nil }
        let version = value[p]
        p += 1
        let layout: UInt64
        switch version {
        case 1: layout = UInt64(firstLayoutID)
        case 2:
            guard let id = varint() else { return nil }
            layout = id
        default: return nil
        }
        guard layout == UInt64(layoutID), let count = varint(), count == UInt64(steps.count) else { return nil }
        // Every field is walked, the ones after the last tested too: a record is
        // answered for only when it holds to its layout whole, so that one a decode
        // would refuse is never turned away here (the general path then throws).
        for number in 0..<steps.count {
            let step = steps[number]
            guard p < end else { return nil }
            let tag = value[p]
            p &+= 1
            // The rule's test, with the tag known in each case, folds to a compare.
            switch tag {
            case 0: // null
                if step.slot >= 0 { slots[Int(step.slot)].state = 2 }
            case 1: // a value: its kind byte, then the kind's bytes
                guard p < end else { return nil }
                let kind = value[p]
                p &+= 1
                guard step.rule.admits(tag: 1, kind: kind) else { return nil }
                if step.slot >= 0 {
                    guard kind == 2, let z = varint() else { return nil }
                    slots[Int(step.slot)] = Slot(state: 1, value: Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1))))
                    continue
                }
                switch kind {
                case 0: break // a null value
                case 1: p &+= 1 // bool
                case 2: guard varint() != nil else { return nil }
                case 3, 6: p &+= 8 // double, date
                case 8: p &+= 16 // uuid
                case 4, 5, 7, 9, 10: // decimal, string, binary, url, composite: length-prefixed
                    guard let length = varint(), length <= UInt64(end - p) else { return nil }
                    p &+= Int(length)
                default: return nil
                }
                guard p <= end else { return nil }
            case 2: // an external blob: file, then offset
                guard step.rule.admits(tag: 2, kind: 0), step.slot < 0, varint() != nil, varint() != nil else { return nil }
            case 3: // a reference
                guard step.rule.admits(tag: 3, kind: 0), step.slot < 0, end - p >= 8 else { return nil }
                p &+= 8
            case 4: // references
                guard step.rule.admits(tag: 4, kind: 0), step.slot < 0, let n = varint(), n <= UInt64(end - p) / 8 else { return nil }
                p &+= Int(n) * 8
            default:
                return nil
            }
        }
        guard p == end else { return nil }
        for test in tests {
            let slot = slots[test.slot]
            if slot.state == 1 {
                if !test.passes(slot.value) { return false }
            } else if !test.nullResult {
                return false
            }
        }
        if read >= 0 && read < slotCount { readValue = slots[read].state == 1 ? slots[read].value : nil }
        return true
    }
}
