/// What deleting an object does to the objects a relationship reaches, as Core Data's
/// `NSDeleteRule` defines it.
///
/// The raw values are the names used in JSON model files: never rename them.
public enum DeleteRule: String, Sendable, Hashable, CaseIterable, Codable {
    /// Set the inverse relationship of each destination to nil (or remove the deleted
    /// object from it). The default, as in Core Data.
    case nullify
    /// Delete the destination objects too.
    case cascade
    /// Refuse the delete while any destination object remains.
    case deny
    /// Do nothing to the destinations; their inverse may then point at a deleted object,
    /// and keeping the graph consistent is the caller's business.
    case noAction
}
