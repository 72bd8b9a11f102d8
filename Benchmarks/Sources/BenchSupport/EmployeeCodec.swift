/// The compact fixed binary encoding of an employee as a Strata record value, until the
/// object layer encodes records itself (little-endian):
///
///     salary i64 · departmentID u32 · nameLength u16 · name · emailLength u16 · email
///
/// The id is the record key and is not repeated in the value.
public enum EmployeeCodec {
    public static func encode(_ e: Employee) -> [UInt8] {
        let name = e.name.utf8, email = e.email.utf8
        var out: [UInt8] = []
        out.reserveCapacity(16 + name.count + email.count)
        append(UInt64(bitPattern: e.salary), bytes: 8, to: &out)
        append(UInt64(e.departmentID), bytes: 4, to: &out)
        append(UInt64(name.count), bytes: 2, to: &out)
        out.append(contentsOf: name)
        append(UInt64(email.count), bytes: 2, to: &out)
        out.append(contentsOf: email)
        return out
    }

    /// The two attributes the fetch workload reads: name and salary.
    public static func nameAndSalary(_ value: [UInt8]) -> (name: String, salary: Int64)? {
        guard value.count >= 14 else { return nil }
        let salary = Int64(bitPattern: read(value, at: 0, bytes: 8))
        let nameLength = Int(read(value, at: 12, bytes: 2))
        guard value.count >= 14 + nameLength else { return nil }
        let name = String(decoding: value[14..<(14 + nameLength)], as: UTF8.self)
        return (name, salary)
    }

    /// The department reference as an index term value: big-endian, so terms sort as numbers.
    public static func departmentTerm(_ departmentID: Int64) -> [UInt8] {
        let v = UInt64(bitPattern: departmentID)
        return (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * $0)) }
    }

    static func append(_ v: UInt64, bytes: Int, to out: inout [UInt8]) {
        for i in 0..<bytes { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }

    static func read(_ a: [UInt8], at offset: Int, bytes: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<bytes { v |= UInt64(a[offset + i]) << (8 * i) }
        return v
    }
}
