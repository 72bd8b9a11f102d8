import StrataLog

/// How a record of one older layout is read as its entity's current layout
/// (docs/FORMAT.md §11.4), worked out once per layout when the schema is built: the
/// older layout's rules, its forward map, and what of the forwarded record still needs
/// checking. Reading a record forward then costs what reading a current one does, plus
/// the fills: no dictionary lookup, no array made for the forwarded fields when the
/// migration only added fields at the end, and no second pass over fields whose rule
/// did not change.
final class ForwardPlan: Sendable {
    /// The older layout's id.
    let layoutID: UInt32
    /// What each field of the older layout may hold: a record is checked against
    /// these before anything is taken from it.
    let olderRules: [FieldRule]
    /// The forward map: current field number → older field number, or a fill.
    let map: StoreSchema.ForwardMap
    /// Whether the map keeps the older fields where they are and appends fills after
    /// them (a migration that only added attributes): the decoded array grows in place.
    let appendsFills: Bool
    /// Whether the forwarded fields must be held to the current layout's rules: true
    /// when some current field takes an older field whose rule differs from its own,
    /// or a fill its rule does not admit (a table whose field ids or fills were edited
    /// would hand over another field's value). When false, every field the map hands
    /// over passed the same rule in the older layout's check, and every fill passed it
    /// here.
    let recheck: Bool

    init(layoutID: UInt32, olderRules: [FieldRule], map: StoreSchema.ForwardMap, currentRules: [FieldRule]) {
        self.layoutID = layoutID
        self.olderRules = olderRules
        self.map = map
        let sources = map.sources
        let kept = sources.prefix { $0 != nil }.count
        appendsFills = kept == olderRules.count && sources.enumerated().allSatisfy { number, source in
            number < kept ? source == number : source == nil
        }
        var recheck = sources.count != currentRules.count || map.fills.count != sources.count
        for number in sources.indices where !recheck {
            if let source = sources[number] {
                recheck = source >= olderRules.count || olderRules[source] != currentRules[number]
            } else {
                recheck = !currentRules[number].admits(map.fills[number])
            }
        }
        self.recheck = recheck
    }

    /// Reads `object`, a record of this plan's layout, as the current layout: checks
    /// it against the older layout's rules, forwards its fields, and checks them
    /// against `currentRules` when the plan says so.
    ///
    /// - Throws: `.corrupt` for a record that does not hold to its layout, or whose
    ///   forwarded fields do not hold to the current one.
    func forward(_ object: inout StoredObject, currentRules: [FieldRule], currentLayout: UInt32, entity: String) throws {
        try FieldRule.check(object.fields, against: olderRules, key: object.key, layout: layoutID, entity: entity)
        if appendsFills {
            let fills = map.fills
            // The caller decoded with room for the current layout's fields.
            for number in olderRules.count..<fills.count { object.fields.append(fills[number]) }
        } else {
            object.fields = map.apply(object.fields)
        }
        object.layoutID = currentLayout
        if recheck {
            try FieldRule.check(object.fields, against: currentRules, key: object.key, layout: currentLayout, entity: entity)
        }
    }
}
