/// What `LogStore.verify()` checked and what it found wrong.
public struct VerifyReport: Sendable, CustomStringConvertible {
    public var segmentsChecked = 0
    public var recordsChecked = 0
    public var blobsChecked = 0
    public var indexFilesChecked = 0
    public var bytesChecked: Int64 = 0
    /// Each problem names its file and offset. Empty when the store is sound.
    public var problems: [StrataError] = []
    /// Things worth knowing that are not damage to data, such as a segment whose index file had to be rebuilt.
    public var warnings: [String] = []

    package init() {}

    public var isSound: Bool { problems.isEmpty }

    /// What a paranoid open throws for this report: `.corrupt` naming the first
    /// problem (its file, offset and context) and how many more there are; nil when
    /// the store is sound.
    package var paranoidRefusal: StrataError? {
        guard let first = problems.first else { return nil }
        let more = problems.count > 1 ? " (and \(problems.count - 1) more problems)" : ""
        return StrataError(.corrupt, "paranoid checks at open found the store damaged: \(first.message)\(more)", path: first.path, offset: first.offset,
                           context: first.context)
    }

    public var description: String {
        var text = "checked \(segmentsChecked) segments, \(recordsChecked) records, \(blobsChecked) blobs, \(indexFilesChecked) index files, \(bytesChecked) bytes: "
        text += problems.isEmpty ? "sound" : "\(problems.count) problem(s)"
        for problem in problems { text += "\n  " + problem.description }
        for warning in warnings { text += "\n  warning: " + warning }
        return text
    }
}
