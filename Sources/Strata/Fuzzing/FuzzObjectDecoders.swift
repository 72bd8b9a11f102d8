import StrataLog

/// The object layer's record codec (docs/FORMAT.md §11.1), for the fuzz targets
/// and their corpus replay: package API, not public.
///
/// ```swift
/// import Strata
/// let fields = try FuzzObjectDecoders.decodeObject(value: bytes, blobs: [])
/// ```
package enum FuzzObjectDecoders {
    /// Decodes a record value as an object's fields.
    ///
    /// - Returns: the number of fields decoded.
    /// - Throws: `StrataError.Code.corrupt` at the first field that does not parse.
    package static func decodeObject(value: [UInt8], blobs: [BlobRef]) throws -> Int {
        let record = Record(key: RecordKey(1), sequence: 1, value: value, blobs: blobs)
        return try ObjectCodec.decode(record).fields.count
    }
}
