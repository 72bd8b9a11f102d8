/// Reads back the index terms of versions that newer ones replace while a store
/// opens: the key index keeps no terms per key, so the replaced record is decoded
/// from its segment. The last frame is kept, since replaced versions come in runs
/// from the same blocks.
final class ReplacedTerms {
    private var frame: (segment: UInt32, offset: UInt32, raw: [UInt8])?

    /// The terms of the version `entry` points at, or nil when its record cannot be
    /// read or is not the version expected (the caller then takes the slow path).
    func terms(of key: RecordKey, entry: KeyIndex.Entry, files: [UInt32: any StorageFile]) -> [IndexTerm]? {
        let location = entry.location
        guard let file = files[location.segment] else { return nil }
        do {
            let raw: [UInt8]
            if let frame, frame.segment == location.segment, frame.offset == location.frameOffset {
                raw = frame.raw
            } else {
                raw = try LogStore.readFrame(at: location, in: file).raw
                frame = (location.segment, location.frameOffset, raw)
            }
            let record = try LogStore.decodeRecord(at: location, in: raw, path: file.path)
            guard record.key == key, record.sequence == entry.sequence else { return nil }
            return record.terms
        } catch {
            return nil
        }
    }
}
