import Hummingbird

/// A row of TechEmpower's World table: `id` 1…10,000 and a random number 1…10,000.
public struct World: Codable, Equatable, Sendable, ResponseEncodable {
    /// The row's id, 1…``World/count``.
    public var id: Int
    /// A number in 1…``World/count``.
    public var randomNumber: Int

    public init(id: Int, randomNumber: Int) {
        self.id = id
        self.randomNumber = randomNumber
    }

    /// Rows in the table, and the upper bound of `randomNumber` (TechEmpower's sizes).
    public static let count = 10_000

    /// A random id or random number, 1…``count``.
    public static func randomValue() -> Int { Int.random(in: 1...count) }

    /// The rows every store starts with: the same numbers for either engine, so that a
    /// comparison of the two starts from identical tables.
    static func initialRows() -> [World] {
        var generator = SplitMix64(seed: 0x5EED_0F_3A7A)
        return (1...count).map { World(id: $0, randomNumber: Int(generator.next() % UInt64(count)) + 1) }
    }
}
