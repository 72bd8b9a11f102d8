import Foundation
import Strata
import StrataLog

// The local store's object-layer paths, for callgrind: `instruction-counts.sh` builds
// this one source against two commits of Strata and counts the instructions of each
// workload under both, so that a change to the seam between the object layer and
// its store shows as a difference in instructions, which the machine's noise does
// not blur. It uses only API both sides have.
//
// Usage: InstructionCounts WORKLOAD DIRECTORY (which must not exist). `setup` opens
// and closes an empty store (`setup-durable` with an fsync per commit); `prepared`
// also batch-inserts 20,000 employees, which the read and update workloads start
// from. A workload's count is its total minus its base's.

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: InstructionCounts WORKLOAD DIRECTORY\n".utf8))
    exit(2)
}
let (workload, directory) = (arguments[1], arguments[2])

let model = try ObjectModel(version: "1") {
    Entity("Employee") {
        Attribute("name", .string)
        Attribute("email", .string)
        Attribute("salary", .int64, default: .int(0))
        Attribute("departmentID", .int64, default: .int(0), indexed: true)
    }
}
var options = StoreOptions()
options.log.durability = workload.hasPrefix("durable") || workload == "setup-durable" ? .everyCommit : .none

func employee(_ i: Int) -> [String: Value] {
    ["name": .string("Employee \(i)"), "email": .string("e\(i)@example.com"),
     "salary": .int(Int64(40_000 + i % 5_000)), "departmentID": .int(Int64(i % 100))]
}

let store = try ObjectStore(at: directory, model: model, options: options)
let startsEmpty: Set = ["setup", "setup-durable", "saves", "durable-saves", "batch-insert"]
let ids = startsEmpty.contains(workload) ? [] : try store.batchInsert(entityName: "Employee", objects: (0..<20_000).map(employee))
switch workload {
case "setup", "setup-durable", "prepared":
    break
case "saves", "durable-saves":
    // One object per save, each in a new context.
    for i in 0..<(workload == "saves" ? 3_000 : 1_000) {
        let context = store.newContext()
        let object = try context.insert("Employee")
        for (key, value) in employee(i) { try object.setValue(value, forKey: key) }
        try context.save()
    }
case "updates":
    for i in 0..<3_000 {
        let context = store.newContext()
        let object = try context.existingObject(with: ids[(i * 7) % ids.count])
        try object.setValue(.int(Int64(i)), forKey: "salary")
        try context.save()
    }
case "fetch-by-id":
    for i in 0..<20_000 {
        let context = store.newContext()
        _ = try context.existingObject(with: ids[(i * 7_919) % ids.count]).value(forKey: "name")
    }
case "query":
    // An indexed equality, 200 matches each.
    let context = store.newContext()
    for i in 0..<200 {
        let request = FetchRequest(entityName: "Employee", predicate: try Predicate(format: "departmentID == %@", Int64(i % 100)))
        _ = try context.fetch(request).count
    }
case "batch-insert":
    _ = try store.batchInsert(entityName: "Employee", objects: (0..<20_000).map(employee))
default:
    FileHandle.standardError.write(Data("unknown workload \(workload)\n".utf8))
    exit(2)
}
try store.close()
