/// Conversions and arithmetic on integers read from files, throwing instead of
/// trapping. A Swift trap ("arithmetic overflow", "Not enough bits") stops the whole
/// process, so no number a file controls is converted with `Int(_:)`/`Int64(_:)` or
/// incremented with `+` before one of these has checked it (FORMAT.md §4.6).
///
/// ```swift
/// let length = try Checked.int(ref.length, "blob length", path: file.path, offset: Int64(ref.offset))
/// let next = try Checked.successor(of: lastSequence, "sequence", path: manifestPath)
/// ```
enum Checked {
    /// `value` as an `Int`, or `.corrupt` naming `what`, the file and offset.
    static func int<T: BinaryInteger>(_ value: T, _ what: String, path: String?, offset: Int64? = nil) throws -> Int {
        guard let converted = Int(exactly: value) else {
            throw StrataError(.corrupt, "\(what) \(value) does not fit this machine's integers", path: path, offset: offset)
        }
        return converted
    }

    /// `value` as an `Int64`, or `.corrupt` naming `what`, the file and offset.
    static func int64<T: BinaryInteger>(_ value: T, _ what: String, path: String?, offset: Int64? = nil) throws -> Int64 {
        guard let converted = Int64(exactly: value) else {
            throw StrataError(.corrupt, "\(what) \(value) is beyond what a file can hold", path: path, offset: offset)
        }
        return converted
    }

    /// `a + b`, or `.corrupt` naming `what` when the sum overflows.
    static func sum<T: FixedWidthInteger>(_ a: T, _ b: T, _ what: String, path: String?, offset: Int64? = nil) throws -> T {
        let (result, overflow) = a.addingReportingOverflow(b)
        guard !overflow else {
            throw StrataError(.corrupt, "\(what) overflows (\(a) + \(b))", path: path, offset: offset)
        }
        return result
    }

    /// The number after `value` (a sequence, a file id), or `.limitExceeded` when
    /// `value` is the type's largest: numbers are never reused, so running out is an
    /// error the caller sees, not a wrap or a trap. Context `limit` names `what`.
    static func successor<T: FixedWidthInteger>(of value: T, _ what: String, path: String?) throws -> T {
        guard value < T.max else {
            throw StrataError(.limitExceeded, "\(what) numbers are exhausted (the last one, \(value), is in use)", path: path, context: ["limit": what])
        }
        return value + 1
    }
}
