import Foundation

/// Scenario 1 at some scale: `employees` employees with a photo of `photoBytes` each,
/// spread over `PhotoScenario.departments` departments. The same on both sides: name
/// "Employee i", salary 40,000 + (i mod 50) × 1,000, incompressible photo bytes.
public struct PhotoScenario: Sendable, Hashable, CustomStringConvertible {
    public var employees: Int
    public var photoBytes: Int

    public static let departments = 10

    public init(employees: Int, photoKiB: Int) {
        self.employees = employees
        self.photoBytes = photoKiB * 1024
    }

    /// "20k × 64 KiB".
    public var description: String { "\(BenchScale.label(employees)) × \(photoBytes / 1024) KiB" }

    /// For directory names and fixture keys.
    public var key: String { "\(employees)x\(photoBytes)" }

    static func name(_ i: Int) -> String { "Employee \(i)" }
    static func salary(_ i: Int) -> Double { Double(40_000 + (i % 50) * 1_000) }

    /// Employee `i`'s photo: incompressible bytes (xorshift), different for everyone.
    static func photo(_ i: Int, bytes count: Int) -> [UInt8] {
        var state = UInt64(i) &* 0x9E37_79B9_7F4A_7C15 | 1
        var result = [UInt8](repeating: 0, count: count)
        result.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                withUnsafeBytes(of: state) { word in
                    for b in 0..<min(8, count - offset) { raw[offset + b] = word[b] }
                }
                offset += 8
            }
        }
        return result
    }

    /// Bytes of all photos together.
    public var totalPhotoBytes: Int { employees * photoBytes }
}
