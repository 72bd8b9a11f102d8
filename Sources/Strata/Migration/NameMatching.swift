/// Pairs destination names with source names the way lightweight migration does:
/// a destination's `renamingIdentifier` names its source first; otherwise (or when the
/// identifier names nothing in the source, as a stale one from an older version may)
/// the same name does. Each source is taken at most once.
struct NameMatching {
    /// Destination name → source name.
    var sources: [String: String] = [:]
    /// Destinations whose renaming identifier names a source another destination took.
    var conflicts: [(destination: String, source: String, other: String)] = []

    /// - Parameters:
    ///   - destinations: Names and renaming identifiers, in a deterministic order.
    ///   - sourceNames: The names that can be matched.
    init(destinations: [(name: String, renamingIdentifier: String?)], sourceNames: Set<String>) {
        var claimedBy: [String: String] = [:]
        // Renames first, so that a new entity reusing an old name does not steal the
        // objects of the entity that was renamed away from that name.
        for destination in destinations {
            guard let previous = destination.renamingIdentifier, sourceNames.contains(previous) else { continue }
            if let other = claimedBy[previous] {
                conflicts.append((destination.name, previous, other))
                continue
            }
            claimedBy[previous] = destination.name
            sources[destination.name] = previous
        }
        let conflicted = Set(conflicts.map(\.destination))
        for destination in destinations where sources[destination.name] == nil && !conflicted.contains(destination.name) {
            guard sourceNames.contains(destination.name), claimedBy[destination.name] == nil else { continue }
            claimedBy[destination.name] = destination.name
            sources[destination.name] = destination.name
        }
    }
}
