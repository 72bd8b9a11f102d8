/// One directory of an `InMemoryFileSystem`: its entries (name → node) as the program
/// sees them now, and as the last `syncDirectory` left them on "disk". Creates, renames
/// and removes change `entries` only; a crash puts `durableEntries` back.
struct InMemoryDirectory: Sendable {
    var entries: [String: Int] = [:]
    var durableEntries: [String: Int] = [:]

    init() {}

    mutating func sync() { durableEntries = entries }
    mutating func crash() { entries = durableEntries }
}
