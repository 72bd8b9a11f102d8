import Foundation
import Strata

/// Scenario 2's tasks through two lightweight stages run in place, so that
/// one store holds records of three layouts, some of them compacted:
///
/// 1. v1 (Tasks-v1.json): 6 tasks in two commits (title, done, notes, priority), then
///    a seal;
/// 2. v2 (Tasks-layouts-v2.json, in place: title renamed name, priority Int16 → Int32,
///    effort added with default 1): 4 tasks, one v1 task changed (rewritten in
///    layout 2), one deleted, then a seal and a compaction of everything sealed;
/// 3. v3 (Tasks-layouts-v3.json, in place: notes removed, priority Int32 → Int64, tag
///    added): 3 tasks left in the active segment.
///
/// The data file says what the store holds at v3, written from the writer's own
/// account of what it did.
struct LayoutsFixture {
    let store: String
    let models: [String]
    let dataFile: String

    struct Task {
        var name: String, done: Bool, priority: Int64, effort: Int64, tag: String?
    }

    static func options(plan: MigrationPlan?) -> StoreOptions {
        var options = StoreOptions()
        options.log.segmentSizeLimit = 8 << 10
        if let plan { options.migration = .plan(plan) }
        return options
    }

    func write() throws {
        guard !FileManager.default.fileExists(atPath: store) else {
            throw StrataError(.invalidArgument, "\(store) exists: the writer makes a new store only")
        }
        let m = try models.map { try ObjectModel(contentsOf: URL(fileURLWithPath: $0)) }
        guard m.count == 3 else { throw StrataError(.invalidArgument, "three model files: v1, v2, v3") }
        var tasks: [String: Task] = [:]
        var order: [String] = []

        do {
            let objects = try ObjectStore(at: store, model: m[0], options: Self.options(plan: nil))
            let context = objects.newContext()
            for i in 0..<6 {
                let task = try context.insert("Task")
                let name = "v1 task \(i)"
                try task.setValue(name, forKey: "title")
                try task.setValue(i % 2 == 0, forKey: "done")
                try task.setValue("notes \(i)", forKey: "notes")
                try task.setValue(Value.int(Int64(i % 4)), forKey: "priority")
                tasks[name] = Task(name: name, done: i % 2 == 0, priority: Int64(i % 4), effort: 1, tag: nil)
                order.append(name)
                if i == 2 { try context.save() }
            }
            try context.save()
            try (objects.records as? LogStore)?.sealActiveSegment()
            try objects.close()
        }
        do {
            let plan = MigrationPlan(models: [m[0], m[1]], stages: [.lightweight(from: m[0], to: m[1])])
            let objects = try ObjectStore(at: store, model: m[1], options: Self.options(plan: plan))
            let context = objects.newContext()
            for i in 0..<4 {
                let task = try context.insert("Task")
                let name = "v2 task \(i)"
                try task.setValue(name, forKey: "name")
                try task.setValue(Value.int(Int64(i % 4)), forKey: "priority")
                try task.setValue(Value.int(Int64(2 + i)), forKey: "effort")
                tasks[name] = Task(name: name, done: false, priority: Int64(i % 4), effort: Int64(2 + i), tag: nil)
                order.append(name)
            }
            let all = try context.fetch(FetchRequest(entityName: "Task", sortKeys: [SortKey("name")]))
            if let changed = all.first(where: { (try? $0.string("name")) == "v1 task 1" }) {
                try changed.setValue(true, forKey: "done")
                tasks["v1 task 1"]?.done = true
            }
            if let gone = all.first(where: { (try? $0.string("name")) == "v1 task 4" }) {
                try context.delete(gone)
                tasks["v1 task 4"] = nil
                order.removeAll { $0 == "v1 task 4" }
            }
            try context.save()
            if let log = objects.records as? LogStore {
                try log.sealActiveSegment()
                _ = try log.compact(force: true)
            }
            try objects.close()
        }
        do {
            let plan = MigrationPlan(models: m, stages: [.lightweight(from: m[0], to: m[1]), .lightweight(from: m[1], to: m[2])])
            let objects = try ObjectStore(at: store, model: m[2], options: Self.options(plan: plan))
            let context = objects.newContext()
            for i in 0..<3 {
                let task = try context.insert("Task")
                let name = "v3 task \(i)"
                try task.setValue(name, forKey: "name")
                try task.setValue(Value.int(3), forKey: "priority")
                try task.setValue("tag \(i)", forKey: "tag")
                tasks[name] = Task(name: name, done: false, priority: 3, effort: 1, tag: "tag \(i)")
                order.append(name)
            }
            try context.save()
            try objects.close()
        }

        var lines: [String] = []
        for name in order {
            guard let task = tasks[name] else { continue }
            var fields = ["\"@entity\": \"Task\"", "\"name\": \(Self.quoted(task.name))", "\"done\": \(task.done)",
                          "\"priority\": \(task.priority)", "\"effort\": \(task.effort)"]
            if let tag = task.tag { fields.append("\"tag\": \(Self.quoted(tag))") }
            lines.append("{" + fields.joined(separator: ", ") + "}")
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: dataFile))
    }

    static func quoted(_ string: String) -> String {
        String(decoding: (try? JSONEncoder().encode(string)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}
