/// A managed object's unsaved stored values, by field number in its entity's layout.
///
/// An array the size of the layout, made on the first change, instead of a dictionary
/// keyed by property name: an inserted Employee's four values cost one small array,
/// not a hash table of strings (hundreds of bytes less per object, and no string
/// hashing on every `setValue`). Names go through the layout's field numbers; a name
/// that is not a stored field (none of the callers gives one) is kept aside.
struct FieldChanges {
    /// The object's entity shape (`ManagedObject.shape` reads it here).
    let shape: StoreSchema.EntityShape
    private var values: [FieldValue?]
    private var others: [String: FieldValue]
    private(set) var count = 0

    init(shape: StoreSchema.EntityShape) {
        self.shape = shape
        // Empty collections made by their initializers, not literals: a literal went
        // through `Dictionary(dictionaryLiteral:)`, a call per object made.
        values = [FieldValue?]()
        others = [String: FieldValue]()
    }

    var isEmpty: Bool { count == 0 }

    /// The change to field `number`, nil when it has none.
    subscript(number: Int) -> FieldValue? {
        get { number < values.count ? values[number] : nil }
        set {
            // Presence by pattern, not `== nil`: that picks Optional's `==` of two
            // `FieldValue?`, which copies and destroys both.
            let has: Bool = if case .none = newValue { false } else { true }
            if number >= values.count {
                guard has else { return }
                // `shape.fieldCount`, not `shape.layout.fields.count`: reading the
                // layout copied (and retained) the whole struct on every first change.
                let count = max(shape.fieldCount, number + 1)
                if values.isEmpty {
                    // The first change: the array made whole, its slots set in one
                    // pass (appending a repeated nil is a generic walk).
                    values = [FieldValue?](unsafeUninitializedCapacity: count) { buffer, initialized in
                        buffer.initialize(repeating: nil)
                        initialized = count
                    }
                } else {
                    values.append(contentsOf: repeatElement(nil, count: count - values.count))
                }
            }
            let had: Bool = if case .none = values[number] { false } else { true }
            if had != has { count += has ? 1 : -1 }
            values[number] = newValue
        }
    }

    /// The change to the stored property `name`, nil when it has none.
    subscript(name: String) -> FieldValue? {
        get {
            if let number = shape.fieldNumber(named: name) { return self[number] }
            return others[name]
        }
        set {
            guard let number = shape.fieldNumber(named: name) else {
                if (others[name] == nil) != (newValue == nil) { count += newValue == nil ? -1 : 1 }
                others[name] = newValue
                return
            }
            self[number] = newValue
        }
    }

    /// The names of the changed properties.
    var names: Set<String> {
        var names = Set(others.keys)
        for (number, value) in values.enumerated() where value != nil { names.insert(shape.layout.fields[number].name) }
        return names
    }

    mutating func removeAll() {
        values = []
        others = [:]
        count = 0
    }
}
