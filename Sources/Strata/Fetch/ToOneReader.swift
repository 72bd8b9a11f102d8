import StrataLog

/// What a compiled predicate's (or sort key's) key paths through to-one relationships
/// lead to (`department`, `department.name`, `department.manager.name`), read from the
/// destinations' records instead of from managed objects: the candidate's record
/// gives the first destination's key, and each destination record the next, as
/// ``PredicateKeyPathWalk`` walks objects. A destination is read once per fetch (a
/// department shared by a thousand candidates is read once), within a bound.
///
/// It answers what the interpreter would answer: a destination this context holds
/// loaded is read as the context last read it (which may differ from the store), one
/// it does not hold from the store. A destination this context has changed, or holds
/// partly loaded, a destination missing from the store (a `noAction` delete leaves
/// such references), an external binary, a value where the path goes on: each
/// answers nil, and the caller judges that candidate as a managed object, exactly as
/// an uncompiled fetch would.
///
/// It reads the context's registry: a fetch whose predicate has such a path is judged
/// on the context's thread only (``CompiledFetch/readsRelationships``).
final class ToOneReader {
    /// A compiled path: what follows its first to-one relationship.
    struct Path {
        let reader: ToOneReader
        /// The components after the first relationship (empty for `department` itself).
        let rest: [String]
        /// The path's number among the reader's, for its answers in the memo.
        let number: Int

        /// The operand `key` (the first relationship's destination) leads to; nil when
        /// the candidate must be judged as an object.
        func resolve(_ key: RecordKey) throws -> PredicateResolvedExpression? {
            try reader.resolve(key, rest: rest, path: number)
        }
    }

    private unowned let context: ObjectContext
    private var paths = 0
    private var memo: [MemoKey: PredicateResolvedExpression?] = [:]
    /// Destinations' answers kept per fetch: enough for the departments or managers
    /// a fetch meets, bounded whatever the store holds (past it the memo starts afresh).
    static let memoLimit = 4_096

    private struct MemoKey: Hashable {
        let path: Int
        let key: RecordKey
    }

    init(context: ObjectContext) {
        self.context = context
    }

    /// How many paths were compiled through this reader so far: a fetch reads
    /// relationships when compiling it moved this on.
    var compiledPaths: Int { paths }

    /// Starts a fetch: the destinations read for the one before are forgotten (the
    /// store may have changed since). Path numbers go on rising, so a fetch run while
    /// another is judged (a fetched property) never reads the other's answers.
    func beginFetch() {
        if !memo.isEmpty { memo.removeAll() }
    }

    /// Compiles `components` (a key path whose first component is a to-one relationship
    /// of `entity`): each later component a to-one of the destination before it, the
    /// last one a stored attribute or a to-one.
    ///
    /// With `endsAtAttribute` the path must end at an attribute (a sort key's does).
    ///
    /// - Throws: ``CompiledPredicate/Refusal`` for a path that needs managed objects
    ///   (a to-many relationship, a transient attribute or an external binary on the way).
    func compile(_ components: [String], entity: EntityDescription, path: String, endsAtAttribute: Bool = false) throws -> Path {
        guard !endsAtAttribute || components.count > 1 else {
            throw CompiledPredicate.Refusal(reason: "the key path '\(path)' ends at a relationship")
        }
        let model = context.store.model
        var current = entity
        for (position, name) in components.enumerated() {
            let isLast = position == components.count - 1
            if let relationship = current.relationshipsByName[name] {
                guard !relationship.isToMany else {
                    throw CompiledPredicate.Refusal(reason: "the key path '\(path)' leads through the to-many relationship '\(name)'")
                }
                guard !(isLast && endsAtAttribute) else {
                    throw CompiledPredicate.Refusal(reason: "the key path '\(path)' ends at a relationship")
                }
                guard let destination = model.entity(named: relationship.destinationEntityName) else {
                    throw CompiledPredicate.Refusal(reason: "the key path '\(path)' leads to an entity the model lacks")
                }
                current = destination
            } else if let attribute = current.attributesByName[name], position > 0, isLast {
                guard !attribute.isTransient, !attribute.allowsExternalStorage else {
                    throw CompiledPredicate.Refusal(reason: "the key path '\(path)' ends at '\(name)', which a record does not hold inline")
                }
            } else {
                throw CompiledPredicate.Refusal(reason: "the key path '\(path)' cannot be read from records")
            }
        }
        defer { paths += 1 }
        return Path(reader: self, rest: Array(components.dropFirst()), number: paths)
    }

    private func resolve(_ key: RecordKey, rest: [String], path: Int) throws -> PredicateResolvedExpression? {
        let memoKey = MemoKey(path: path, key: key)
        if let known = memo[memoKey] { return known }
        let answer = try walk(from: key, rest: rest)
        if memo.count >= Self.memoLimit { memo.removeAll(keepingCapacity: true) }
        memo[memoKey] = answer
        return answer
    }

    private func walk(from first: RecordKey, rest: [String]) throws -> PredicateResolvedExpression? {
        var key = first
        var position = 0
        while true {
            // A destination the context changed is judged as its object (its unsaved
            // state, or its stored one, is the interpreter's to weigh).
            if context.changed[key] != nil { return nil }
            let held = context.registry[key]?.object
            // Partly loaded: the interpreter reads what it holds or completes it.
            if held?.loadedFieldNumbers != nil { return nil }
            guard let id = context.store.objectID(for: key) else { return nil }
            var fields: [FieldValue]?
            if let held, let stored = held.stored {
                // Loaded whole: its values as this context last read them, as the
                // interpreter reads them (both with and without pending changes).
                fields = stored.fields
            } else if position == rest.count {
                // The path ends at this destination: its identity, once it is known to exist.
                guard try context.store.records.contains(key) else { return nil }
                return .single(.object(id))
            } else {
                guard try context.store.records.withRecord(key, { view in fields = try context.decodeStored(view).fields }) else { return nil }
            }
            guard let fields else { return nil }
            guard position < rest.count else { return .single(.object(id)) }
            guard let shape = context.shape(tag: StoreSchema.tag(of: key)), let number = shape.fieldNumber(named: rest[position]) else { return nil }
            let field = number < fields.count ? fields[number] : .null
            let isLast = position == rest.count - 1
            switch field {
            case .null:
                // A nil to-one on the way yields nil, as in key-value coding.
                return .single(.value(.null))
            case .value(let value) where isLast:
                return .single(.value(value))
            case .reference(let next):
                key = next
                position += 1
            default:
                return nil
            }
        }
    }
}
