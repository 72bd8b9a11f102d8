/// The object layer's metadata in the manifest (FORMAT.md §6.3, §11.1, §11.2, §11.4):
/// `strata.schema` and `strata.edges` (tags swapped, moved to an unused number, to
/// another entity's or relation's, removed), `strata.layouts` (every number ±1, 0 and
/// another entry's; every string another entry's; every key removed; fields and
/// layouts reordered or dropped; fills changed), `strata.model` and
/// `strata.modelHash` removed or changed. The manifest is re-encoded around the new
/// value, its CRC recomputed.
extension DamageCatalogue {
    static func metadataCases(_ path: String, _ bytes: [UInt8], facts: DamageFacts) -> [DamageCase] {
        var result: [DamageCase] = []
        func add(_ key: String, _ category: String, _ description: String, _ value: [UInt8]?) {
            let edited = facts.manifest(bytes, replacing: key, with: value)
            result.append(DamageCase(category: "metadata \(key) \(category)", description: "MANIFEST \(key): \(description)", path: path) { _ in edited })
        }
        for entry in facts.metadata {
            let key = entry.key
            add(key, "removed", "removed", nil)
            switch key {
            case "strata.modelHash":
                var hash = entry.value
                if let last = hash.indices.last { hash[last] = hash[last] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0") }
                add(key, "changed", "last hex digit changed", hash)
            case "strata.model":
                add(key, "changed", "cut to its first half", Array(entry.value.prefix(entry.value.count / 2)))
            case "strata.schema", "strata.edges":
                guard let json = DamageJSON.decode(entry.value) else { continue }
                add(key, "control", "re-encoded unchanged", json.encoded)
                for (description, edited) in tagEdits(json, facts: facts) { add(key, "tag", description, edited.encoded) }
            case "strata.layouts":
                guard let json = DamageJSON.decode(entry.value) else { continue }
                add(key, "control", "re-encoded unchanged", json.encoded)
                for (category, description, edited) in layoutEdits(json) { add(key, category, description, edited.encoded) }
            default:
                break
            }
        }
        return result
    }

    /// Edits of a `{"Name": tag}` map: each tag ±1, 0, 65535, an unused number and
    /// another name's tag (of this map or, for edges, an entity's); each pair swapped;
    /// each name removed.
    static func tagEdits(_ json: DamageJSON, facts: DamageFacts) -> [(String, DamageJSON)] {
        guard case .object(let tags) = json else { return [] }
        var result: [(String, DamageJSON)] = []
        let names = tags.keys.sorted()
        let allTags = Set(facts.entityTags.keys.map(Int64.init) + facts.edgeTags.keys.map(Int64.init))
        let unused = (100..<200).first { !allTags.contains(Int64($0)) }.map(Int64.init) ?? 100
        for name in names {
            guard case .integer(let tag) = tags[name] else { continue }
            var values: [(String, Int64)] = [("+1", tag + 1), ("−1", tag - 1), ("0", 0), ("65535", 65535), ("unused \(unused)", unused)]
            for other in names where other != name {
                if case .integer(let value) = tags[other] { values.append(("\(other)'s", value)) }
            }
            for (entityTag, entity) in facts.entityTags.sorted(by: { $0.key < $1.key }) where !tags.keys.contains(entity) {
                values.append(("entity \(entity)'s", Int64(entityTag)))
            }
            var seen: Set<Int64> = [tag]
            for (how, value) in values where seen.insert(value).inserted {
                result.append(("\(name) \(tag) → \(value) (\(how))", json.replacing([.key(name)], with: .integer(value))))
            }
            result.append(("\(name) removed", json.replacing([.key(name)], with: nil)))
        }
        for (i, a) in names.enumerated() {
            for b in names[(i + 1)...] {
                guard let ta = tags[a], let tb = tags[b] else { continue }
                result.append(("\(a) and \(b) swapped", json.replacing([.key(a)], with: tb).replacing([.key(b)], with: ta)))
            }
        }
        return result
    }

    /// Edits of the layout table, each (category, description, table).
    static func layoutEdits(_ json: DamageJSON) -> [(String, String, DamageJSON)] {
        var result: [(String, String, DamageJSON)] = []
        for path in json.paths() {
            guard let value = json[path] else { continue }
            let name = layoutPathName(path, in: json)
            let pattern = layoutPattern(path)
            // Every key removed.
            if case .key = path.last { result.append(("\(pattern) removed", "\(name) removed", json.replacing(path, with: nil))) }
            switch value {
            case .integer(let number):
                var values: [(String, Int64)] = [("+1", number + 1), ("−1", number - 1), ("0", 0)]
                if let peer = peerValue(of: path, in: json), case .integer(let other) = peer { values.append(("copied from a sibling", other)) }
                var seen: Set<Int64> = [number]
                for (how, edited) in values where seen.insert(edited).inserted {
                    result.append((pattern, "\(name) \(number) → \(edited) (\(how))", json.replacing(path, with: .integer(edited))))
                }
            case .string(let text):
                if let peer = peerValue(of: path, in: json), case .string(let other) = peer, other != text {
                    result.append((pattern, "\(name) \"\(text)\" → \"\(other)\" (copied from a sibling)", json.replacing(path, with: .string(other))))
                }
                if case .key("kind") = path.last {
                    let other = text == "attribute" ? "toOne" : "attribute"
                    result.append((pattern, "\(name) \"\(text)\" → \"\(other)\"", json.replacing(path, with: .string(other))))
                }
                if case .key("fill") = path.last {
                    // Another int (kind 2, zigzag 2 = 1), a string where an int is due,
                    // and bytes that are no value at all.
                    for (how, fill) in [("the int 1", "AgI="), ("a string", "BQF4"), ("not base64", "%%%"), ("kind 99", "Yw==")] where fill != text {
                        result.append((pattern, "\(name) \"\(text)\" → \"\(fill)\" (\(how))", json.replacing(path, with: .string(fill))))
                    }
                }
            case .bool(let flag):
                result.append((pattern, "\(name) \(flag) → \(!flag)", json.replacing(path, with: .bool(!flag))))
            case .array(let items) where items.count >= 2:
                // The first two swapped, and the last dropped.
                var swapped = items
                swapped.swapAt(0, 1)
                if swapped != items { result.append(("\(pattern) order", "\(name): first two swapped", json.replacing(path, with: .array(swapped)))) }
                result.append(("\(pattern) shortened", "\(name): last dropped", json.replacing(path, with: .array(Array(items.dropLast())))))
            case .array(let items) where items.count == 1:
                result.append(("\(pattern) shortened", "\(name): emptied", json.replacing(path, with: .array([]))))
            default:
                break
            }
        }
        return result
    }

    /// The same key's value in the next sibling of the enclosing array element that
    /// differs ("the same field of another entry"): another field's id, another
    /// layout's id, another entity's tag.
    static func peerValue(of path: [DamageJSON.Step], in json: DamageJSON) -> DamageJSON? {
        guard let value = json[path] else { return nil }
        for depth in stride(from: path.count - 2, through: 0, by: -1) {
            let container = Array(path[..<depth])
            let tail = Array(path[(depth + 1)...])
            switch (json[container], path[depth]) {
            case (.array(let items)?, .index(let index)):
                for other in items.indices where other != index {
                    if let candidate = items[other][tail], candidate != value { return candidate }
                }
            case (.object(let members)?, .key(let key)):
                for other in members.keys.sorted() where other != key {
                    if let candidate = members[other]?[tail], candidate != value { return candidate }
                }
            default:
                break
            }
        }
        return nil
    }

    /// "entities.Employee.layouts[1](id 2).fields[4](level).id".
    static func layoutPathName(_ path: [DamageJSON.Step], in json: DamageJSON) -> String {
        var text = "", walked: [DamageJSON.Step] = []
        for step in path {
            walked.append(step)
            switch step {
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index):
                text += "[\(index)]"
                if case .object(let members)? = json[walked] {
                    if case .string(let name)? = members["name"] { text += "(\(name))" }
                    else if case .integer(let id)? = members["id"] { text += "(id \(id))" }
                }
            }
        }
        return text
    }

    /// The path with entity names and indices left out: "entities.*.layouts[].fields[].id".
    static func layoutPattern(_ path: [DamageJSON.Step]) -> String {
        var text = ""
        for (n, step) in path.enumerated() {
            switch step {
            case .key(let key):
                let wildcard = n == 1 && path.first == .key("entities")
                text += (text.isEmpty ? "" : ".") + (wildcard ? "*" : key)
            case .index: text += "[]"
            }
        }
        return text
    }
}
