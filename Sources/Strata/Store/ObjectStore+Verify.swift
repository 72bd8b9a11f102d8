import StrataLog

extension ObjectStore {
    /// Checks every frame, index and blob reference of the store (the engine's
    /// checks, counters included), then every object and edge record against the
    /// model: each object record decodes in its layout (docs/FORMAT.md §11.4), each
    /// to-one reference names a key of its destination entity, each edge joins an
    /// owner and a member of its relation's entities that exist, and every key belongs
    /// to an entity, an edge relation or a retired tag. It reports rather than throws.
    ///
    /// ```swift
    /// let report = try store.verify()
    /// if !report.isSound { print(report) }
    /// ```
    public func verify() throws -> VerifyReport {
        var report = try records.verify()
        var problems = ObjectProblems()
        verifyTags(&problems)
        for problem in historyProblems(limit: ObjectProblems.limit) { problems.add(problem) }
        for shape in schema.shapes.values.sorted(by: { $0.layout.tag < $1.layout.tag }) { verifyObjects(of: shape, &problems, &report) }
        for relation in schema.edgeRelations { verifyEdges(of: relation, &problems, &report) }
        report.problems += problems.found
        if problems.dropped > 0 { report.warnings.append("\(problems.dropped) more object-layer problems not listed") }
        return report
    }

    /// At most this many object-layer problems are listed: one damaged layout table
    /// would otherwise list every record.
    private struct ObjectProblems {
        static let limit = 100
        var found: [StrataError] = []
        var dropped = 0

        mutating func add(_ error: StrataError) {
            if found.count < Self.limit { found.append(error) } else { dropped += 1 }
        }

        mutating func add(_ error: any Error, key: RecordKey) {
            add((error as? StrataError) ?? StrataError(.corrupt, "\(error)", context: ["key": "\(key.rawValue)"]))
        }
    }

    /// Every key prefix with live keys is an entity's, an edge relation's or a retired
    /// entity's tag: keys under any other are objects no fetch can find.
    private func verifyTags(_ problems: inout ObjectProblems) {
        let known = Set(schema.allTags).union(schema.layoutTable.retiredTags).union([HistoryLog.tag])
        var after: RecordKey?
        do {
            while let key = try records.keys(in: nil, after: after, limit: 1).first {
                let tag = StoreSchema.tag(of: key)
                let range = StoreSchema.range(tag: tag)
                if !known.contains(tag) {
                    let count = try records.count(in: range)
                    problems.add(StrataError(.corrupt, "\(count) keys lie under tag \(tag), which no entity or edge relation of the store's schema has",
                                             context: ["tag": "\(tag)", "keys": "\(count)"]))
                }
                guard tag < UInt16.max else { break }
                after = RecordKey(range.upperBound.rawValue - 1)
            }
        } catch {
            problems.add((error as? StrataError) ?? StrataError(.corrupt, "\(error)"))
        }
    }

    private func verifyObjects(of shape: StoreSchema.EntityShape, _ problems: inout ObjectProblems, _ report: inout VerifyReport) {
        let toOnes: [(number: Int, name: String, kinds: Set<UInt16>)] = shape.toOneRelationships.compactMap { relationship in
            guard let number = shape.layout.fieldNumbers[relationship.name],
                  let destination = schema.shapes[relationship.destinationEntityName] else { return nil }
            return (number, relationship.name, Set(destination.layout.kindTags))
        }
        let termIndexes = Set(shape.layout.fields.compactMap(\.termIndex) + shape.layout.compoundTerms.map(\.index))
        do {
            try records.scan(StoreSchema.range(tag: shape.layout.tag), batchSize: 1024) { batch in
                for record in batch where record.key.rawValue & ObjectID.serialMask != 0 {
                    report.recordsChecked += 1
                    let object: StoredObject
                    do {
                        object = try schema.decode(record)
                    } catch {
                        problems.add(error, key: record.key)
                        continue
                    }
                    // The terms a record carries are what its fields give: index
                    // lookups answer by them and reads by the fields, so they must agree.
                    // Records of older layouts keep the terms they were written with,
                    // and stores without the current encodings may carry older ones.
                    if exactTerms && blobTerms && shape.layout.layout(named: object.layoutID) == shape.layout.layoutID {
                        do {
                            let expected = Set(try ObjectCodec.encode(object.fields, layout: shape.layout) { try records.readBlob($0) }.terms)
                            // Terms under numbers no current field answers for (a field
                            // dropped in place) stay in the records, unread.
                            let carried = Set(record.terms.filter { termIndexes.contains($0.index) })
                            if !expected.isSubset(of: Set(record.terms)) || !carried.isSubset(of: expected) {
                                problems.add(StrataError(.corrupt, "\(shape.entity.name) \(record.key.rawValue) carries index terms its fields do not give: lookups and reads of it disagree",
                                                         context: ["entity": shape.entity.name, "key": "\(record.key.rawValue)"]))
                            }
                        } catch {
                            problems.add(error, key: record.key)
                        }
                    }
                    for toOne in toOnes {
                        guard case .reference(let target) = object.fields[toOne.number], target.rawValue != 0 else { continue }
                        if !toOne.kinds.contains(StoreSchema.tag(of: target)) || target.rawValue & ObjectID.serialMask == 0 {
                            problems.add(StrataError(.corrupt, "\(shape.entity.name) \(record.key.rawValue)'s \(toOne.name) names key \(target.rawValue), which is not an object of its destination entity",
                                                     context: ["entity": shape.entity.name, "key": "\(record.key.rawValue)", "relationship": toOne.name]))
                        }
                    }
                }
            }
        } catch {
            problems.add((error as? StrataError) ?? StrataError(.corrupt, "\(error)", context: ["entity": shape.entity.name]))
        }
    }

    private func verifyEdges(of relation: EdgeRelation, _ problems: inout ObjectProblems, _ report: inout VerifyReport) {
        let owners = Set(schema.shapes[relation.ownerEntity]?.layout.kindTags ?? [])
        let members = Set(schema.shapes[relation.memberEntity]?.layout.kindTags ?? [])
        do {
            try records.scan(StoreSchema.range(tag: relation.tag), batchSize: 1024) { batch in
                for record in batch where record.key.rawValue & ObjectID.serialMask != 0 {
                    report.recordsChecked += 1
                    do {
                        let edge = try EdgeCodec.decode(record)
                        if Set(EdgeCodec.encode(edge, relation: relation).terms) != Set(record.terms) {
                            problems.add(StrataError(.corrupt, "edge \(record.key.rawValue) of \(relation.name) carries index terms its ends do not give: listings and reads of it disagree",
                                                     context: ["relation": relation.name, "key": "\(record.key.rawValue)"]))
                        }
                        let joinsItsEntities = owners.contains(StoreSchema.tag(of: edge.owner)) && members.contains(StoreSchema.tag(of: edge.member))
                        guard joinsItsEntities, try records.contains(edge.owner), try records.contains(edge.member) else {
                            problems.add(StrataError(.corrupt, "edge \(record.key.rawValue) of \(relation.name) joins \(edge.owner.rawValue) and \(edge.member.rawValue), which are not an existing \(relation.ownerEntity) and \(relation.memberEntity)",
                                                     context: ["relation": relation.name, "key": "\(record.key.rawValue)"]))
                            continue
                        }
                    } catch {
                        problems.add(error, key: record.key)
                    }
                }
            }
        } catch {
            problems.add((error as? StrataError) ?? StrataError(.corrupt, "\(error)", context: ["relation": relation.name]))
        }
    }
}
