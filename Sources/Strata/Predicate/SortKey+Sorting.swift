import Foundation

extension SortKey {
    /// How two subjects compare under a list of sort keys: by the first key, then the
    /// next on ties; `.orderedSame` when they tie on every key (or the list is empty).
    ///
    /// ```swift
    /// try SortKey.compare(ann, bo, by: [.ascending("lastName"), .ascending("firstName")])
    /// ```
    ///
    /// - Throws: as ``value(of:)``.
    package static func compare(
        _ lhs: some PredicateSubject, _ rhs: some PredicateSubject, by keys: [SortKey]
    ) throws -> ComparisonResult {
        for key in keys {
            let order = key.compare(try key.value(of: lhs), try key.value(of: rhs))
            if order != .orderedSame { return order }
        }
        return .orderedSame
    }

    /// The subjects sorted by a list of sort keys, stably: subjects that tie on every
    /// key keep their relative order.
    ///
    /// Each subject's values are read once, before sorting, so a fault fires once per
    /// key rather than once per comparison.
    ///
    /// - Throws: as ``value(of:)``.
    package static func sorted<Subject: PredicateSubject>(_ subjects: [Subject], by keys: [SortKey]) throws -> [Subject] {
        guard !keys.isEmpty else { return subjects }
        let rows = try subjects.enumerated().map { position, subject in
            (position: position, values: try keys.map { try $0.value(of: subject) })
        }
        let order = rows.sorted { left, right in
            for (index, key) in keys.enumerated() {
                switch key.compare(left.values[index], right.values[index]) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            // The original position breaks ties: that is what makes the sort stable.
            return left.position < right.position
        }
        return order.map { subjects[$0.position] }
    }
}
