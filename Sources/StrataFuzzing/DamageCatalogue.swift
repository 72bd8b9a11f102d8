/// One damage: a single edit of one file of the template, its checksums recomputed.
struct DamageCase {
    /// The summary's row: the file kind and the field's pattern.
    var category: String
    /// What was edited, readable and exact: "segment 3 frame@1234 record[2] (Employee
    /// 2:5) sequence 41 → 42 (+1)".
    var description: String
    var path: String
    /// The file's new bytes, from its template bytes.
    var edit: @Sendable ([UInt8]) -> [UInt8]
}

/// Every field of every file of the template (FORMAT.md §3, §5, §6, §7, §11), each
/// edited in the ways a damaged or hostile copy would hold it: +1, −1, 0, all ones, and
/// the value of the same field of another entry; the object layer's metadata edited as
/// JSON. One edit a case, checksums recomputed.
enum DamageCatalogue {
    /// The cases of a template (`compressed`: the variant with LZ4 records and blobs,
    /// whose frame and blob entry fields are catalogued; its other files are the same
    /// kind as the uncompressed template's and are left to that one).
    static func cases(_ files: [String: [UInt8]], compressed: Bool) -> [DamageCase] {
        guard let manifest = files[StoreTemplate.root + "/MANIFEST"] else { return [] }
        let facts = DamageFacts(manifest: manifest)
        let prefix = compressed ? "lz4 " : ""
        var result: [DamageCase] = []
        for path in files.keys.sorted(by: fileOrder) {
            guard let bytes = files[path] else { continue }
            let name = path.split(separator: "/").last.map(String.init) ?? path
            let id = UInt32(name.prefix { $0.isNumber }) ?? 0
            var fields: [DamageField] = []
            if path.hasSuffix("/MANIFEST") {
                guard !compressed else { continue }
                fields = manifestFields(path, bytes, facts: facts)
                result += metadataCases(path, bytes, facts: facts)
            } else if path.hasSuffix(".seg") {
                fields = segmentFields(path, bytes, id: id, facts: facts, prefix: prefix)
            } else if path.hasSuffix(".idx") {
                guard !compressed else { continue }
                fields = indexFields(path, bytes, id: id, facts: facts)
            } else if path.hasSuffix(".blob") {
                fields = blobFields(path, bytes, id: id, facts: facts, prefix: prefix)
            }
            result += mutations(of: fields, in: bytes)
        }
        return result
    }

    /// MANIFEST first, then segments, index files and blob files by id.
    static func fileOrder(_ a: String, _ b: String) -> Bool {
        func rank(_ path: String) -> Int {
            path.hasSuffix("MANIFEST") ? 0 : path.hasSuffix(".seg") ? 1 : path.hasSuffix(".idx") ? 2 : 3
        }
        return (rank(a), a) < (rank(b), b)
    }

    /// The edits of each field: +1, −1, 0, all ones, and another entry's value of the
    /// same field (the next one, in file order, that differs), each value once.
    static func mutations(of fields: [DamageField], in bytes: [UInt8]) -> [DamageCase] {
        var peers: [String: [Int]] = [:]
        for (n, field) in fields.enumerated() { peers[field.category, default: []].append(n) }
        var result: [DamageCase] = []
        for (n, field) in fields.enumerated() {
            guard let old = field.value(in: bytes) else { continue }
            var edits: [(String, UInt64)] = []
            switch field.mutations {
            case .cleared:
                edits = [("cleared", 0)]
            case .numeric:
                let maximum = field.maximum
                if old < maximum { edits.append(("+1", old + 1)) }
                edits.append(("−1", old == 0 ? maximum : old - 1))
                edits.append(("0", 0))
                edits.append(("all ones", maximum))
                let group = peers[field.category] ?? []
                if let at = group.firstIndex(of: n) {
                    for other in group[(at + 1)...] + group[..<at] {
                        guard let value = fields[other].value(in: bytes), value != old, value <= maximum else { continue }
                        edits.append(("copied from \(fields[other].name)", value))
                        break
                    }
                }
            }
            var seen: Set<UInt64> = [old]
            for (how, value) in edits where seen.insert(value).inserted {
                let field = field
                result.append(DamageCase(category: field.category, description: "\(field.name) \(old) → \(value) (\(how))", path: field.path) { bytes in
                    var bytes = bytes
                    field.write(value, into: &bytes)
                    for repair in field.repairs { repair.apply(to: &bytes) }
                    return bytes
                })
            }
        }
        return result
    }
}
