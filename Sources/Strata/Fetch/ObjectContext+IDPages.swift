import StrataLog

extension ObjectContext {
    /// The ids of `entityName`'s saved objects in id order, after `after` (nil: from the
    /// first), at most `limit`: keyset paging by id, as `WHERE id > ? ORDER BY id LIMIT ?`
    /// pages a table. It reads the key index only — no record, no object — and stops after
    /// `limit` ids, so a page costs the page, not the entity. Unsaved inserts of this
    /// context are not listed, and subentities' objects are not either (ids of one entity
    /// order by ``ObjectID/serial``).
    ///
    /// ```swift
    /// let page = try context.fetchObjectIDs(entityName: "Todo", after: lastSeen, limit: 50)
    /// let todos = try page.map { try context.existingObject(with: $0) }
    /// ```
    ///
    /// - Throws: `.unknownKeyPath` for an entity the model lacks; `.invalidArgument` for
    ///   an `after` of another entity or a negative limit.
    public func fetchObjectIDs(entityName: String, after: ObjectID? = nil, limit: Int) throws -> [ObjectID] {
        guard let tag = store.schema.tags[entityName] else {
            throw StrataError(.unknownKeyPath, "the model has no entity '\(entityName)'", context: ["entity": entityName])
        }
        guard limit >= 0 else {
            throw StrataError(.invalidArgument, "a page's limit is \(limit): it must be 0 or more", context: ["entity": entityName])
        }
        if let after, after.entityName != entityName || after.storeIdentifier != store.identifier {
            throw StrataError(.invalidArgument, "the id to page after, \(after), is not an object of \(entityName) in this store", context: ["entity": entityName])
        }
        guard limit > 0 else { return [] }
        let keys = try store.records.keys(in: StoreSchema.range(tag: tag), after: after?.key, limit: limit)
        return keys.map { ObjectID(entityName: entityName, key: $0, storeIdentifier: store.identifier) }
    }
}
