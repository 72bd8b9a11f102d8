import StrataLog

extension ObjectStore {
    /// Whether `key` is one of the history's records (its state or an entry), which
    /// no entity owns.
    package static func isHistoryKey(_ key: RecordKey) -> Bool { StoreSchema.tag(of: key) == HistoryLog.tag }

    /// What is wrong with the stored history, at most `limit` problems: a state record
    /// or an entry that does not decode, an entry of a transaction after the last
    /// commit or of none (sequence 0), a change of a key under no entity's tag.
    package func historyProblems(limit: Int) -> [StrataError] {
        // A store read as of a past token keeps no history to hold to anything: its
        // entries' older versions were not kept for it (FORMAT.md §11.6).
        if (records as? LogStore)?.readsAsOfThePast == true { return [] }
        var problems: [StrataError] = []
        func add(_ error: any Error, _ key: RecordKey) {
            guard problems.count < limit else { return }
            var problem = (error as? StrataError) ?? StrataError(.corrupt, "\(error)")
            problem.context["key"] = String(key.rawValue, radix: 16)
            problems.append(problem)
        }
        do {
            if let record = try records.get(HistoryLog.stateKey) {
                do { _ = try HistoryLog.State.decode(record.value) } catch { add(error, HistoryLog.stateKey) }
            }
            let entities = Set(schema.allTags).union(schema.layoutTable.retiredTags)
            let last = records.lastSequence
            var after: RecordKey?
            while problems.count < limit {
                let keys = try records.keys(in: HistoryLog.entries, after: after, limit: 512)
                guard let end = keys.last else { break }
                for (key, record) in zip(keys, try records.get(keys)) {
                    guard let record else { continue }
                    let sequence = HistoryLog.sequence(of: key)
                    if sequence > last {
                        add(StrataError(.corrupt, "a history entry is of transaction \(sequence), after the last commit (\(last))"), key)
                        continue
                    }
                    do {
                        let entry = try HistoryEntry.decode(record.value)
                        if let stray = entry.changes.first(where: { !entities.contains(StoreSchema.tag(of: $0.key)) }) {
                            add(StrataError(.corrupt, "history entry \(sequence) names key \(String(stray.key.rawValue, radix: 16)), under no entity's tag"), key)
                        }
                    } catch {
                        add(error, key)
                    }
                }
                after = end
            }
        } catch {
            add(error, HistoryLog.stateKey)
        }
        return problems
    }
}
