import Foundation
import StrataData
import StrataTestSupport
import Testing

/// Typed and untyped code share one store and one context.
@Suite struct TypedUntypedTests {
    @Test func aManagedObjectViewedAsItsModelAndBack() throws {
        let (container, context) = try inMemoryContainer(Employee.self, Department.self)
        // Written untyped…
        let untyped = context.objectContext
        let sales = try untyped.insert("Department")
        try sales.setValue("Sales", forKey: "name")
        let ada = try untyped.insert("Employee")
        try ada.setValue("Ada", forKey: "name")
        try ada.setValue("ada@x", forKey: "email")
        try ada.setObject(sales, forKey: "department")
        // …read typed in the same context, before and after save.
        let typed = try context.model(for: ada, as: Employee.self)
        #expect(typed.name == "Ada" && typed.department?.name == "Sales")
        #expect(try context.model(for: ada, as: Employee.self) === typed, "one model per object")
        typed.salary = 120
        #expect(try ada.double("salary") == 120, "a typed write is the object's write")
        #expect(typed.managedObject === ada)
        try context.save()
        // A wrong type is refused.
        let wrong = #expect(throws: StrataError.self) { _ = try context.model(for: ada, as: Department.self) }
        #expect(wrong?.code == .typeMismatch)
        // Another untyped context reads what the typed one wrote.
        let other = container.store.newContext()
        let found = try other.fetch(FetchRequest(entityName: "Employee", predicate: .key("salary") == 120.0))
        #expect(try found.first?.string("name") == "Ada")
    }

    /// The object points at its model unretained (ModelLink): while the model lives, every
    /// lookup answers it; when its last user lets go, the object forgets it, and the next
    /// lookup makes a fresh model that reads the same values. Run under ASan (make
    /// test-asan), a dangling pointer here is a report, not a silent pass.
    @Test func aModelThatGoesIsReplacedNotReused() throws {
        let (_, context) = try inMemoryContainer(Employee.self, Department.self)
        let object: ManagedObject
        do {
            let ada = Employee(name: "Ada", email: "ada@x")
            ada.salary = 10
            context.insert(ada)
            try context.save()
            object = try #require(ada.managedObject)
            #expect(try context.model(for: object, as: Employee.self) === ada)
            #expect(try context.model(for: ada.persistentModelID) as? Employee === ada)
        }
        // The first model is gone: a new one is made, by either lookup, and kept while used.
        for _ in 0..<3 {
            let again = try context.model(for: object, as: Employee.self)
            #expect(again.name == "Ada" && again.salary == 10)
            #expect(try context.model(for: again.persistentModelID) as? Employee === again)
            #expect(try context.model(for: object, as: Employee.self) === again)
        }
        // Fetched models are linked the same way: a fetch while a model is held answers it.
        let held = try context.model(for: object, as: Employee.self)
        let fetched = try context.fetch(FetchDescriptor<Employee>())
        #expect(fetched.count == 1 && fetched[0] === held)
    }

    @Test func identifiersCrossContexts() throws {
        let (container, context) = try inMemoryContainer(Employee.self, Department.self)
        let ada = Employee(name: "Ada", email: "ada@x")
        #expect(ada.persistentModelID.isTemporary)
        context.insert(ada)
        #expect(!ada.persistentModelID.isTemporary)
        try context.save()
        let id = ada.persistentModelID
        let other = ModelContext(container)
        let again: Employee = try other.existingModel(for: id)
        #expect(again.name == "Ada" && again !== ada)
        #expect(again.persistentModelID == id)
        #expect(try other.model(for: id) is Employee)
        // Using a model of one context in another is an error kept for save.
        let stranger = Department(name: "X")
        other.insert(stranger)
        stranger.employees = [ada]
        let error = #expect(throws: StrataError.self) { try other.save() }
        #expect(error?.message.contains("another context") == true)
    }

    @Test func uniquenessThroughTheTypedAPI() throws {
        let (_, context) = try inMemoryContainer(Employee.self, Department.self)
        context.insert(Employee(name: "Ada", email: "same@x"))
        try context.save()
        context.insert(Employee(name: "Eve", email: "same@x"))
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .validationFailed)
        #expect(error?.message.contains("email") == true, "\(String(describing: error))")
        context.rollback()
        context.insert(Department(name: "Sales"))
        context.insert(Department(name: "Sales"))
        let departments = #expect(throws: StrataError.self) { try context.save() }
        #expect(departments?.code == .validationFailed, "#Unique<Department>([\\.name])")
    }

    @Test func everyAttributeTypeRoundTrips() throws {
        let dir = try TemporaryDirectory("typed-types")
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.path)
        let id: PersistentIdentifier
        do {
            let container = try ModelContainer(for: Sample.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let sample = Sample(text: "t")
            sample.flag = true
            sample.int = -5; sample.int8 = -8; sample.int16 = 16; sample.int32 = 32; sample.int64 = 1 << 40
            sample.uint8 = 255; sample.uint16 = 65535; sample.uint32 = 4_000_000_000
            sample.float = 1.5; sample.double = 2.25; sample.decimal = Decimal(string: "12.345")!
            sample.date = Date(timeIntervalSince1970: 1_700_000_000)
            sample.data = Data([1, 2, 3]); sample.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
            sample.url = URL(string: "https://example.com/a")!
            sample.address = Address(street: "1 Main", city: "Oslo"); sample.level = .senior; sample.tags = ["a", "b"]
            sample.maybeText = "m"; sample.maybeAddress = Address(street: "2", city: "Bergen")
            sample.scratch = 9
            context.insert(sample)
            try context.save()
            id = sample.persistentModelID
            try container.close()
        }
        let container = try ModelContainer(for: Sample.self, configurations: ModelConfiguration(url: url))
        defer { try? container.close() }
        let sample: Sample = try ModelContext(container).existingModel(for: id)
        #expect(sample.text == "t" && sample.flag)
        #expect(sample.int == -5 && sample.int8 == -8 && sample.int16 == 16 && sample.int32 == 32 && sample.int64 == 1 << 40)
        #expect(sample.uint8 == 255 && sample.uint16 == 65535 && sample.uint32 == 4_000_000_000)
        #expect(sample.float == 1.5 && sample.double == 2.25 && sample.decimal == Decimal(string: "12.345")!)
        #expect(sample.date == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(sample.data == Data([1, 2, 3]) && sample.uuid.uuidString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(sample.url.absoluteString == "https://example.com/a")
        #expect(sample.address == Address(street: "1 Main", city: "Oslo") && sample.level == .senior && sample.tags == ["a", "b"])
        #expect(sample.maybeText == "m" && sample.maybeInt == nil && sample.maybeAddress?.city == "Bergen")
        #expect(sample.scratch == 0, "a transient property is not stored")
        // The composite is the same JSON the untyped API reads.
        #expect(try sample.managedObject?.composite("address", as: Address.self)?.city == "Oslo")
    }

    @Test func accessorFailuresAreThrownBySave() throws {
        let (_, context) = try inMemoryContainer(Sample.self)
        let sample = Sample(text: "x")
        context.insert(sample)
        // A composite that the store holds under another shape no longer decodes.
        try sample.managedObject?.setValue(.composite(Data("{\"nope\":1}".utf8)), forKey: "address")
        #expect(sample.address == Address(street: "", city: ""), "the failed read returns the declared default")
        #expect(context.accessErrors.count == 1)
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.context["property"] == "address")
        #expect(context.accessErrors.isEmpty)
    }
}
