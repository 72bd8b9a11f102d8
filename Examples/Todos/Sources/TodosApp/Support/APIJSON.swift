import Foundation

/// The API's JSON coders: dates as ISO 8601 text (`2026-11-26T09:30:00Z`) rather than
/// Foundation's default seconds since 2001. Clients in Swift (the tests) decode with
/// the same coders.
public enum APIJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
