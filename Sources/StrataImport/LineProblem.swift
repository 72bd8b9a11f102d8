/// Why one line of an import cannot be used; the import adds the line number.
package struct LineProblem: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
