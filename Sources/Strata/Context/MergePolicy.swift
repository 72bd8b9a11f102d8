/// What `save()` does when objects it writes changed in the store since the context
/// read them (optimistic locking), as Core Data's merge policies. What a policy makes
/// of the objects is validated again before it is written: a merge never breaks a rule
/// of the model.
public enum MergePolicy: Sendable {
    /// Refuse the save with `StrataError.Code.conflict` listing the objects. The default.
    case error
    /// The store's version wins: this context's changes to conflicting objects are dropped.
    case storeWins
    /// This context's version wins whole: it overwrites the store's. An object the
    /// store deleted meanwhile is written again from the values this context read and
    /// its changes, its attributes and to-ones (refused as a conflict when it read only
    /// some of them). What the delete did elsewhere stays done: to-manys kept as edges,
    /// other objects' to-ones it nullified, objects it cascaded to.
    case contextWins
    /// Property by property: this context's changed properties over the store's newest
    /// values (Core Data's mergeByPropertyObjectTrump).
    case propertyLevelContextTrump
    /// Property by property: the store's changed properties over this context's
    /// (Core Data's mergeByPropertyStoreTrump).
    case propertyLevelStoreTrump
}
