import SystemPackage

/// A failure for a `FaultInjectingFileSystem` to inject: which operation, on which
/// paths, on which occurrence, with which errno.
///
/// ```swift
/// fs.inject(.fail(.sync, errno: EIO, matching: "segments/", on: .nth(3)))  // the 3rd fsync of a segment
/// fs.inject(.fail(.rename, matching: "MANIFEST"))                          // every manifest swap
/// fs.inject(.shortWrite(keeping: 10))                                      // 10 bytes land, then ENOSPC
/// fs.inject(.diskFull(afterBytes: 1 << 20))                                // the disk fills after 1 MiB
/// ```
///
/// ## Topics
/// - ``fail(_:errno:matching:on:)``
/// - ``shortWrite(keeping:errno:matching:on:)``
/// - ``diskFull(afterBytes:)``
/// - ``Operation``
/// - ``Trigger``
/// - ``PathPattern``
package struct Fault: Sendable, CustomStringConvertible {
    /// What happens when the fault fires.
    package enum Effect: Sendable, Equatable {
        /// The operation does nothing and throws `.io` with `errno`.
        case fail(errno: Int32)
        /// A write stores its first `keepingBytes` bytes, then throws `.io` with `errno`:
        /// what a disk that fills up mid-write does.
        case shortWrite(keepingBytes: Int, errno: Int32)
        /// After `capacity` bytes written in total (from injection on), every operation
        /// that takes space fails with ENOSPC; the write that crosses the line is short.
        case diskFull(capacity: Int64)
    }

    /// What happens when the fault fires.
    package var effect: Effect
    /// The operation it aims at (`.write` for short writes and a full disk, which also
    /// refuses creates, directory creates and growing truncates).
    package var operation: Operation
    /// The paths it aims at; a rename matches on its source or its destination.
    package var paths: PathPattern
    /// Which of the matching operations, counted from injection, fail.
    package var trigger: Trigger

    package init(_ effect: Effect, operation: Operation, paths: PathPattern = .any, trigger: Trigger = .always) {
        self.effect = effect
        self.operation = operation
        self.paths = paths
        self.trigger = trigger
    }

    /// Fails `operation` on paths matching `paths` with `errno` (EIO unless told).
    ///
    /// - Parameters:
    ///   - operation: the kind of operation to fail.
    ///   - errno: the error number the `StrataError` carries (EIO = 5, ENOSPC = 28).
    ///   - paths: which paths; a string literal means "contains".
    ///   - trigger: which matching occurrences fail; every one unless told.
    package static func fail(
        _ operation: Operation, errno: Int32 = Errno.ioError.rawValue,
        matching paths: PathPattern = .any, on trigger: Trigger = .always
    ) -> Fault {
        Fault(.fail(errno: errno), operation: operation, paths: paths, trigger: trigger)
    }

    /// Makes writes short: the first `bytes` bytes of a matching write land in the file,
    /// then it throws `.io` with `errno` (ENOSPC unless told).
    package static func shortWrite(
        keeping bytes: Int, errno: Int32 = Errno.noSpace.rawValue,
        matching paths: PathPattern = .any, on trigger: Trigger = .always
    ) -> Fault {
        Fault(.shortWrite(keepingBytes: max(0, bytes), errno: errno), operation: .write, paths: paths, trigger: trigger)
    }

    /// A disk that fills up: `bytes` more bytes can be written (through any file), then
    /// writes, creates, directory creates and growing truncates fail with ENOSPC. The
    /// write that crosses the line stores what fits. Reads, syncs, renames and removes
    /// go on working, so that the engine can report the failure and clean up.
    package static func diskFull(afterBytes bytes: Int64) -> Fault {
        Fault(.diskFull(capacity: max(0, bytes)), operation: .write)
    }

    package var description: String {
        switch effect {
        case .fail(let errno): "fail \(operation) on \(paths) \(trigger) with errno \(errno)"
        case .shortWrite(let keep, let errno): "short write of \(keep) bytes on \(paths) \(trigger) with errno \(errno)"
        case .diskFull(let capacity): "disk full after \(capacity) bytes"
        }
    }

    /// Names an injected fault, to remove it or ask how often it fired.
    package struct ID: Hashable, Sendable {
        let rawValue: Int
    }
}
