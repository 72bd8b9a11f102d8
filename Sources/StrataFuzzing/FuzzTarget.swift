import StrataImport
import StrataLog
/// The fuzz targets: one libFuzzer executable each in `Fuzz/`, one corpus directory
/// each in `Fuzz/Corpus/<rawValue>/`, replayed by the tests. Both call `run(_:)`, so a
/// corpus file means the same thing to the fuzzer and to `make test`.
///
/// ```swift
/// if let finding = FuzzTarget.manifest.run(bytes) { print(finding) }
/// ```
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Frames, records blocks and commits of a segment file (the scanner).
    case segment
    /// One records block, record by record.
    case recordsBlock = "records-block"
    /// A sealed segment's index file (a hint file in format 1).
    case index
    /// The MANIFEST.
    case manifest
    /// A blob file's entries, and a blob reference into one.
    case blob
    /// The object layer's record codec.
    case objectRecord = "object-record"
    /// A small valid store edited field by field, checksums recomputed, then opened,
    /// read whole, verified, written to, compacted and reopened.
    case store
    /// A JSON model file.
    case model
    /// A predicate format string, parsed, checked against a small model and evaluated.
    case predicate
    /// A pair of models made from the input: mapping inference and plan validation.
    case mapping
    /// One line of a JSON Lines import: the fast decoder against its reference.
    case importLine = "import-line"

    /// Runs the target on one input.
    ///
    /// - Returns: nil when the input was handled as promised (accepted, or refused
    ///   with a `StrataError`); a finding when an oracle failed. A trap is a crash of
    ///   the caller, which is what libFuzzer looks for.
    public func run(_ bytes: [UInt8]) -> FuzzFinding? {
        do {
            switch self {
            case .segment: try Self.segment(bytes)
            case .recordsBlock: try Self.recordsBlock(bytes)
            case .index: try Self.index(bytes)
            case .manifest: try Self.manifest(bytes)
            case .blob: try Self.blob(bytes)
            case .objectRecord: try Self.objectRecord(bytes)
            case .store: try StoreDamage.run(bytes)
            case .model: try Self.model(bytes)
            case .predicate: try Self.predicate(bytes)
            case .mapping: try Self.mapping(bytes)
            case .importLine: try Self.importLine(bytes)
            }
            return nil
        } catch let finding as FuzzFinding {
            return finding
        } catch is StrataError {
            // Refusing bad input with a clear error is the promise kept.
            return nil
        } catch is LineProblem {
            // An import line's refusal, as `strata import` reports it.
            return nil
        } catch {
            return FuzzFinding("\(self.rawValue): threw \(type(of: error)), not a StrataError: \(error)")
        }
    }
}
