import StrataLog

extension ObjectContext {
    /// Deletes an object and applies its relationships' delete rules as Core Data
    /// documents them: nullify clears the inverse on the destinations, cascade deletes
    /// them too, deny refuses while a destination remains, no action leaves them as
    /// they are. Strata checks deny here, before anything changes, rather than at
    /// save — so a refused delete leaves the context untouched. The save removes
    /// every edge of a deleted object (its memberships in stored to-manys, either
    /// side), whatever the rule, so no to-many lists a deleted object.
    ///
    /// - Throws: `.deleteDenied` naming the relationship and the blocking objects.
    public func delete(_ object: ManagedObject) throws {
        guard !object.isDeleted else { return }
        guard object.context === self else {
            throw StrataError(.invalidArgument, "\(object.objectID) belongs to another context", context: ["object": object.objectID.uriRepresentation])
        }
        // Everything this delete takes with it, through cascades.
        var closure: [RecordKey: ManagedObject] = [object.recordKey: object]
        var queue = [object]
        while let next = queue.popLast() {
            for relationship in next.entity.relationships where relationship.deleteRule == .cascade {
                for key in try destinationKeys(of: next, relationship) where closure[key] == nil {
                    let destination = try self.object(forKey: key)
                    if destination.isDeleted { continue }
                    closure[key] = destination
                    queue.append(destination)
                }
            }
        }
        for member in closure.values {
            for relationship in member.entity.relationships where relationship.deleteRule == .deny {
                // Destinations this context already deleted do not block.
                let blocking = try destinationKeys(of: member, relationship).filter { key in
                    closure[key] == nil && !(held(key)?.isDeleted ?? false)
                }
                if !blocking.isEmpty {
                    let names = blocking.compactMap { store.objectID(for: $0)?.description }
                    throw StrataError(.deleteDenied, "\(member.entity.name).\(relationship.name) denies deleting \(member.objectID) while it has \(names.joined(separator: ", "))",
                                      context: ["entity": member.entity.name, "keyPath": relationship.name, "objects": names.joined(separator: ",")])
                }
            }
        }
        for member in closure.values {
            for relationship in member.entity.relationships where relationship.deleteRule == .nullify || relationship.deleteRule == .cascade {
                guard let inverse = inverse(of: relationship) else { continue }
                for key in try destinationKeys(of: member, relationship) where closure[key] == nil {
                    let destination = try self.object(forKey: key)
                    guard !destination.isDeleted else { continue }
                    if !inverse.isToMany {
                        if case .reference(member.recordKey) = try destination.field(inverse.name) {
                            try willChange(destination)
                            destination.changes[inverse.name] = .null
                        }
                    } else if edgeSide(destination, inverse) != nil {
                        try removeFromMany(destination, relationship: inverse, member)
                    }
                }
            }
        }
        for member in closure.values {
            if member.isNew {
                member.isDeleted = true
                changed[member.recordKey] = nil
                registry[member.recordKey] = nil
                // Never saved: its memberships are forgotten rather than written.
                for tag in Array(edgeChanges.keys) { edgeChanges[tag]?.forget(member.recordKey) }
            } else {
                try member.fire()
                member.isDeleted = true
                track(member)
            }
        }
    }

    private func destinationKeys(of object: ManagedObject, _ relationship: RelationshipDescription) throws -> [RecordKey] {
        if relationship.isToMany { return try destinations(of: object, relationship: relationship) }
        if case .reference(let key) = try object.field(relationship.name) { return [key] }
        return []
    }
}
