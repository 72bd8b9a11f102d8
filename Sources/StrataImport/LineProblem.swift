/// Why one line of an import cannot be used; the import adds the line number.
public struct LineProblem: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
