import Foundation
import Strata

/// Scenario 1's v1 store after a life of use: written in many commits through segments
/// and blob files kept tiny, so it holds what a store made by `strata import` at
/// fixture size cannot — sealed segments with hint files, a compaction's output,
/// tombstones in a sealed segment and in the active one, overwritten and removed
/// photos, several blob files, one of them written by blob garbage collection.
///
/// The rounds, each closing the store:
/// 1. 5 departments and 30 employees, 4 per commit (photos in the blob area, inline,
///    LZ4-compressed, or none);
/// 2. raises, new photos over old blobs, photos removed, a move, a department
///    dropped, two employees deleted, a department deleted with its employees (cascade);
/// 3. the active segment sealed, then every sealed segment and blob file compacted;
/// 4. deletes and inserts after the compaction, then a seal: tombstones whose older
///    versions are in the compaction's output, so compaction kept them;
/// 5. one more commit left in the active segment, a delete among its records.
struct LifecycleFixture {
    let store: String
    let modelFile: String
    let dataFile: String

    static let departmentNames = ["Engineering", "Sales", "Support", "Research", "Legal"]
    static let employeeNames = [
        "Ada Lovelace", "Grace Hopper", "Linus Ødegaard", "Zoë Ångström", "Carlos Méndez",
        "Priya Natarajan", "李雷", "Fatima Al-Sayed", "Olusegun Bello", "Hannah Schmidt",
        "Mateo Rossi", "Noor Haddad", "Émile Durand", "Søren Kierkegaard", "Aiko Tanaka",
        "Björn Ulvaeus", "Chiara Bianchi", "Dmitri Volkov", "Eilidh MacLeod", "Farid Haddad",
        "Giulia Conti", "Hyun-woo Park", "Ingrid Bergman", "Javier Ruiz", "Kwame Mensah",
        "Léa Moreau", "Mei Chen", "Nils Holm", "O'Brien, Siobhán", "Pál Erdős",
    ]
    static let newcomers = ["Quentin \"Q\" Blake", "Rosa Parks-Díaz", "Sipho Ndlovu"]

    /// Small enough that 35 employees roll many segments and blob files.
    static func options() -> StoreOptions {
        var options = StoreOptions()
        options.log.segmentSizeLimit = 8 << 10
        options.log.blobFileSizeLimit = 64 << 10
        return options
    }

    /// Photo of employee `index`: blob-area noise, inline noise, none, or a compressible
    /// blob, around the default 8 KiB external-storage threshold.
    static func photo(_ index: Int) -> [UInt8]? {
        switch index % 4 {
        case 0: FixtureBytes.noise(20_480 + 64 * index, seed: UInt64(index))
        case 1: FixtureBytes.noise(2_048 + index, seed: UInt64(index))
        case 2: nil
        default: index % 8 == 3 ? FixtureBytes.flat(12_288, seed: UInt64(index)) : FixtureBytes.noise(9_216, seed: UInt64(index))
        }
    }

    func write() throws {
        guard !FileManager.default.fileExists(atPath: store) else {
            throw StrataError(.invalidArgument, "\(store) exists: the writer makes a new store only")
        }
        let model = try ObjectModel(contentsOf: URL(fileURLWithPath: modelFile))
        var expected = ExpectedContents()

        try withContext(model) { context in
            var departments: [String: ManagedObject] = [:]
            for name in Self.departmentNames {
                let department = try context.insert("Department")
                try department.setValue(name, forKey: "name")
                departments[name] = department
                expected.departments.append(name)
            }
            try context.save()
            for (index, name) in Self.employeeNames.enumerated() {
                let department = Self.departmentNames[index % Self.departmentNames.count]
                let employee = try context.insert("Employee")
                try employee.setValue(name, forKey: "name")
                // One in seven leaves salary to its default.
                let salary: Double? = index % 7 == 6 ? nil : 40_000 + 1_375.25 * Double(index)
                if let salary { try employee.setValue(salary, forKey: "salary") }
                let photo = Self.photo(index)
                if let photo { try employee.setValue(Data(photo), forKey: "photo") }
                try employee.setObject(departments[department], forKey: "department")
                expected.employees.append(.init(ref: Self.ref(index), name: name, salary: salary, photo: photo, department: department))
                if index % 4 == 3 { try context.save() }
            }
            try context.save()
        }

        try withContext(model) { context in
            // Raises for every third employee.
            for index in stride(from: 0, to: Self.employeeNames.count, by: 3) {
                let employee = try Self.employee(index, in: context)
                let salary = (expected.employees.first { $0.ref == Self.ref(index) }?.salary ?? 0) + 2_500
                try employee.setValue(salary, forKey: "salary")
                expected.update(Self.ref(index)) { $0.salary = salary }
            }
            try context.save()
            // New photos over blob-area ones: their old blobs become garbage.
            for index in [0, 8, 16] {
                let photo = FixtureBytes.noise(24_576, seed: 1_000 + UInt64(index))
                try Self.employee(index, in: context).setValue(Data(photo), forKey: "photo")
                expected.update(Self.ref(index)) { $0.photo = photo }
            }
            try context.save()
            // Photos removed: one from the blob area, one inline.
            for index in [12, 5] {
                try Self.employee(index, in: context).setValue(Value.null, forKey: "photo")
                expected.update(Self.ref(index)) { $0.photo = nil }
            }
            // A move between departments, and one employee left without any.
            let sales = try Self.department("Sales", in: context)
            try Self.employee(2, in: context).setObject(sales, forKey: "department")
            expected.update(Self.ref(2)) { $0.department = "Sales" }
            try Self.employee(7, in: context).setObject(nil, forKey: "department")
            expected.update(Self.ref(7)) { $0.department = nil }
            try context.save()
            for index in [6, 13] {
                try context.delete(try Self.employee(index, in: context))
                expected.remove(employee: Self.ref(index))
            }
            try context.save()
            try context.delete(try Self.department("Legal", in: context))
            expected.remove(department: "Legal")
            try context.save()
        }

        try withLog { log in
            try log.sealActiveSegment()
            _ = try log.compact(force: true)
        }

        try withContext(model) { context in
            for index in [1, 10, 11] {
                try context.delete(try Self.employee(index, in: context))
                expected.remove(employee: Self.ref(index))
            }
            let research = try Self.department("Research", in: context)
            for (offset, name) in Self.newcomers.prefix(2).enumerated() {
                let index = Self.employeeNames.count + offset
                let employee = try context.insert("Employee")
                try employee.setValue(name, forKey: "name")
                try employee.setValue(61_000.5 + Double(offset), forKey: "salary")
                let photo = FixtureBytes.noise(offset == 0 ? 10_240 : 1_024, seed: UInt64(index))
                try employee.setValue(Data(photo), forKey: "photo")
                try employee.setObject(research, forKey: "department")
                expected.employees.append(.init(ref: Self.ref(index), name: name, salary: 61_000.5 + Double(offset), photo: photo, department: "Research"))
            }
            try context.save()
        }
        try withLog { log in try log.sealActiveSegment() }

        try withContext(model) { context in
            try context.delete(try Self.employee(17, in: context))
            expected.remove(employee: Self.ref(17))
            let index = Self.employeeNames.count + 2
            let employee = try context.insert("Employee")
            try employee.setValue(Self.newcomers[2], forKey: "name")
            try employee.setValue(58_250.75, forKey: "salary")
            let photo = FixtureBytes.flat(16_384, seed: UInt64(index))
            try employee.setValue(Data(photo), forKey: "photo")
            try employee.setObject(try Self.department("Support", in: context), forKey: "department")
            expected.employees.append(.init(ref: Self.ref(index), name: Self.newcomers[2], salary: 58_250.75, photo: photo, department: "Support"))
            try context.save()
        }

        try Data(expected.jsonLines().utf8).write(to: URL(fileURLWithPath: dataFile))
    }

    static func ref(_ index: Int) -> String { String(format: "emp-%02d", index + 1) }

    static func employee(_ index: Int, in context: ObjectContext) throws -> ManagedObject {
        try one("Employee", named: employeeNames[index], in: context)
    }

    static func department(_ name: String, in context: ObjectContext) throws -> ManagedObject {
        try one("Department", named: name, in: context)
    }

    static func one(_ entity: String, named name: String, in context: ObjectContext) throws -> ManagedObject {
        let found = try context.fetch(FetchRequest(entityName: entity, predicate: try Predicate(format: "name == %@", name)))
        guard found.count == 1, let object = found.first else {
            throw StrataError(.notFound, "the writer expected one \(entity) named \(name), found \(found.count)")
        }
        return object
    }

    private func withContext(_ model: ObjectModel, _ body: (ObjectContext) throws -> Void) throws {
        let objects = try ObjectStore(at: store, model: model, options: Self.options())
        defer { try? objects.close() }
        try body(objects.newContext())
        try objects.close()
    }

    private func withLog(_ body: (LogStore) throws -> Void) throws {
        var options = Self.options().log
        options.createIfMissing = false
        let log = try LogStore.open(at: store, options: options)
        defer { try? log.close() }
        try body(log)
        try log.close()
    }
}
