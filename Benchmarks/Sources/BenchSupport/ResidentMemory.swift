import Foundation

#if os(Linux)
/// glibc's `malloc_trim` (declared in <malloc.h>, which the Glibc module does not import).
@_silgen_name("malloc_trim")
private func mallocTrim(_ pad: Int) -> Int32
#endif

/// Peak resident memory of this process, per workload: `reset()` returns freed heap
/// to the system and clears the kernel's high-water mark (Linux `clear_refs` 5), and
/// `peak` reads it back (`VmHWM`). Nil where the system offers neither.
public enum ResidentMemory {
    @discardableResult
    public static func reset() -> Bool {
        #if os(Linux)
        _ = mallocTrim(0)
        #endif
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do { try handle.write(contentsOf: Array("5".utf8)) } catch { return false }
        return true
    }

    /// Peak resident set since start or the last `reset()`, in bytes.
    public static var peak: Int? { status("VmHWM:") }

    /// The resident set now, in bytes.
    public static var current: Int? { status("VmRSS:") }

    static func status(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let kib = Int(fields[1]) { return kib * 1024 }
        }
        return nil
    }
}
