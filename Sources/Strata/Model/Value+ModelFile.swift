import Foundation

extension Value {
    /// Reads a value of `type` from its model-file form (docs/MODEL.md, "Values").
    ///
    /// - Throws: A description of why the scalar does not fit `type`, for the caller
    ///   to wrap with the entity and property names.
    init(modelFile scalar: ModelFileScalar, as type: AttributeType) throws(ModelFileValueProblem) {
        switch (type, scalar) {
        case (.bool, .bool(let value)):
            self = .bool(value)
        case (.int16, .integer(let value)), (.int32, .integer(let value)), (.int64, .integer(let value)):
            self = .int(value)
        case (.float, .integer(let value)), (.double, .integer(let value)):
            self = .double(Double(value))
        case (.float, .number(let value)), (.double, .number(let value)):
            self = .double(value)
        case (.float, .string(let text)), (.double, .string(let text)):
            switch text {
            case "NaN": self = .double(.nan)
            case "Infinity": self = .double(.infinity)
            case "-Infinity": self = .double(-.infinity)
            default: throw .init("'\(text)' is not a number (strings allowed: NaN, Infinity, -Infinity)")
            }
        case (.decimal, .string(let text)):
            guard let value = Self.exactDecimal(text) else {
                throw .init("'\(text)' is not a decimal number")
            }
            self = .decimal(value)
        case (.decimal, .integer(let value)):
            self = .decimal(Decimal(value))
        case (.string, .string(let text)):
            self = .string(text)
        case (.date, .string(let text)):
            guard let date = Self.iso8601Date(text) else {
                throw .init("'\(text)' is not an ISO 8601 date such as 2024-05-01T12:00:00Z")
            }
            self = .date(date)
        case (.date, .integer(let seconds)):
            self = .date(Date(timeIntervalSince1970: TimeInterval(seconds)))
        case (.date, .number(let seconds)):
            self = .date(Date(timeIntervalSince1970: seconds))
        case (.binary, .string(let text)), (.transformable, .string(let text)):
            guard let data = Data(base64Encoded: text) else { throw .init("the binary value is not base64") }
            self = .binary(data)
        case (.uuid, .string(let text)):
            guard let uuid = UUID(uuidString: text) else { throw .init("'\(text)' is not a UUID") }
            self = .uuid(uuid)
        case (.url, .string(let text)):
            guard let url = URL(string: text) else { throw .init("'\(text)' is not a URL") }
            self = .url(url)
        case (.composite, .string(let text)):
            self = .composite(Data(text.utf8))
        default:
            throw .init("a JSON \(scalar.kind) does not fit type \(type.rawValue)")
        }
    }

    /// The model-file form of this value; `nil` for `.null`.
    var modelFileScalar: ModelFileScalar? {
        switch self {
        case .null: return nil
        case .bool(let value): return .bool(value)
        case .int(let value): return .integer(value)
        case .double(let value):
            if value.isNaN { return .string("NaN") }
            if value.isInfinite { return .string(value < 0 ? "-Infinity" : "Infinity") }
            return .number(value)
        case .decimal(let value): return .string(value.description)
        case .string(let value): return .string(value)
        case .date(let date):
            // Whole seconds read best as ISO 8601 and survive it exactly; anything finer
            // is written as seconds since 1970 so that no digit is lost.
            let seconds = date.timeIntervalSince1970
            if seconds.rounded() == seconds {
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withInternetDateTime]
                return .string(formatter.string(from: date))
            }
            return .number(seconds)
        case .binary(let data): return .string(data.base64EncodedString())
        case .uuid(let uuid): return .string(uuid.uuidString)
        case .url(let url): return .string(url.absoluteString)
        case .composite(let json): return .string(String(decoding: json, as: UTF8.self))
        }
    }

    private static func iso8601Date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// A decimal only when the whole text is one: `Decimal(string:)` alone accepts a
    /// prefix ("12abc" reads as 12).
    private static func exactDecimal(_ text: String) -> Decimal? {
        let allowed = Set("0123456789+-.eE")
        guard !text.isEmpty, text.allSatisfy(allowed.contains) else { return nil }
        let scanner = Scanner(string: text)
        scanner.locale = Locale(identifier: "en_US_POSIX")
        guard let value = scanner.scanDecimal(), scanner.isAtEnd else { return nil }
        return value
    }
}
