import StrataData

/// A composite attribute: a Codable struct kept as JSON.
struct Address: Codable, Equatable {
    var street: String
    var city: String
}

/// A Codable enum, also a composite.
enum Level: String, Codable {
    case junior, senior
}

/// Every attribute type a model property can have.
@Model final class Sample {
    var text: String
    var flag: Bool = false
    var int: Int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var float: Float = 0
    var double: Double = 0
    var decimal: Decimal = 0
    var date: Date = Date(timeIntervalSince1970: 0)
    var data: Data = Data()
    var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))
    var url: URL = URL(fileURLWithPath: "/tmp")
    var address: Address = Address(street: "", city: "")
    var level: Level = Level.junior
    var tags: [String] = []
    var maybeText: String?
    var maybeInt: Int?
    var maybeAddress: Address?
    @Attribute(originalName: "oldName") var renamed: String = ""
    @Transient var scratch = 0
    var computed: String { text.uppercased() }
    init(text: String) { self.text = text }
}
