import Foundation
import StrataData
import StrataTestSupport
import Testing

// SwiftData's documented migration example (the SampleTrips schemas and plan), written
// as SwiftData's documentation writes it — `static let` stages, one-argument hooks, a
// willMigrate that de-duplicates and saves — with `import StrataData` for `import
// SwiftData`. The one change Swift 6 mode asks of any code, SwiftData's included: the
// version identifiers are computed (`static var … { … }`), not stored `static var`s.

enum SampleTripsSchemaV1: VersionedSchema {
    static var models: [any PersistentModel.Type] { [Trip.self, BucketListItem.self] }
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }

    @Model
    final class Trip {
        var name: String
        var destination: String
        var start_date: Date
        var end_date: Date

        @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
        var bucketList: [BucketListItem] = [BucketListItem]()

        init(name: String, destination: String, start_date: Date, end_date: Date) {
            self.name = name
            self.destination = destination
            self.start_date = start_date
            self.end_date = end_date
        }
    }

    @Model
    final class BucketListItem {
        var title: String
        var details: String
        var trip: Trip?

        init(title: String, details: String) {
            self.title = title
            self.details = details
        }
    }
}

enum SampleTripsSchemaV2: VersionedSchema {
    static var models: [any PersistentModel.Type] { [Trip.self, BucketListItem.self] }
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }

    @Model
    final class Trip {
        @Attribute(.unique) var name: String
        var destination: String
        var start_date: Date
        var end_date: Date

        @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
        var bucketList: [BucketListItem] = [BucketListItem]()

        init(name: String, destination: String, start_date: Date, end_date: Date) {
            self.name = name
            self.destination = destination
            self.start_date = start_date
            self.end_date = end_date
        }
    }

    @Model
    final class BucketListItem {
        var title: String
        var details: String
        var trip: Trip?

        init(title: String, details: String) {
            self.title = title
            self.details = details
        }
    }
}

enum SampleTripsSchemaV3: VersionedSchema {
    static var models: [any PersistentModel.Type] { [Trip.self, BucketListItem.self] }
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }

    @Model
    final class Trip {
        @Attribute(.unique) var name: String
        var destination: String
        @Attribute(originalName: "start_date") var startDate: Date
        @Attribute(originalName: "end_date") var endDate: Date

        @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
        var bucketList: [BucketListItem] = [BucketListItem]()

        init(name: String, destination: String, startDate: Date, endDate: Date) {
            self.name = name
            self.destination = destination
            self.startDate = startDate
            self.endDate = endDate
        }
    }

    @Model
    final class BucketListItem {
        var title: String
        var details: String
        var trip: Trip?

        init(title: String, details: String) {
            self.title = title
            self.details = details
        }
    }
}

enum SampleTripsMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [SampleTripsSchemaV1.self, SampleTripsSchemaV2.self, SampleTripsSchemaV3.self]
    }

    static var stages: [MigrationStage] {
        [migrateV1toV2, migrateV2toV3]
    }

    static let migrateV1toV2 = MigrationStage.custom(
        fromVersion: SampleTripsSchemaV1.self,
        toVersion: SampleTripsSchemaV2.self,
        willMigrate: { context in
            let trips = try context.fetch(FetchDescriptor<SampleTripsSchemaV1.Trip>())
            // De-duplicate Trip instances by name before V2 makes names unique.
            var seen = Set<String>()
            for trip in trips where !seen.insert(trip.name).inserted {
                context.delete(trip)
            }
            try context.save()
        }, didMigrate: nil
    )

    static let migrateV2toV3 = MigrationStage.lightweight(
        fromVersion: SampleTripsSchemaV2.self,
        toVersion: SampleTripsSchemaV3.self
    )
}

/// The same first stage with its work in `didMigrate`, in SwiftData's one-argument form:
/// the hook gets the new store's context, after the store took the V2 model.
enum SampleTripsUppercasingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [SampleTripsSchemaV1.self, SampleTripsSchemaV2.self]
    }

    static var stages: [MigrationStage] {
        [migrateV1toV2]
    }

    static let migrateV1toV2 = MigrationStage.custom(
        fromVersion: SampleTripsSchemaV1.self,
        toVersion: SampleTripsSchemaV2.self,
        willMigrate: nil,
        didMigrate: { context in
            let trips = try context.fetch(FetchDescriptor<SampleTripsSchemaV2.Trip>())
            for trip in trips {
                trip.destination = trip.destination.uppercased()
            }
            try context.save()
        }
    )
}

/// A model with a large binary kept outside its record, as SwiftData's documentation
/// writes one.
@Model
final class TripPhoto {
    @Attribute(.unique) var caption: String
    @Attribute(.externalStorage) var image: Data?

    init(caption: String, image: Data? = nil) {
        self.caption = caption
        self.image = image
    }
}

@Suite struct SwiftDataExampleTests {
    /// The plan, run: the V1 store's duplicate trip goes in willMigrate, the names
    /// become unique, the dates take their new names, bucket lists come along.
    @Test func theSampleTripsPlanMigratesAV1Store() throws {
        let dir = try TemporaryDirectory("swiftdata-sample-trips")
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.path)
        let day: TimeInterval = 86_400
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        do {
            let container = try ModelContainer(for: SampleTripsSchemaV1.Trip.self, SampleTripsSchemaV1.BucketListItem.self,
                                               configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            for (name, destination, offset) in [("Paris", "France", 0.0), ("Paris", "France", 1.0), ("Kyoto", "Japan", 10.0)] {
                let trip = SampleTripsSchemaV1.Trip(name: name, destination: destination,
                                                    start_date: start + offset * day, end_date: start + (offset + 5) * day)
                context.insert(trip)
                let item = SampleTripsSchemaV1.BucketListItem(title: "See \(destination)", details: "")
                item.trip = trip
            }
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<SampleTripsSchemaV1.BucketListItem>()) == 3, "an item set on an inserted trip is inserted with it")
            try container.close()
        }

        let container = try ModelContainer(for: SampleTripsSchemaV3.Trip.self, SampleTripsSchemaV3.BucketListItem.self,
                                           migrationPlan: SampleTripsMigrationPlan.self,
                                           configurations: ModelConfiguration(url: url))
        defer { try? container.close() }
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<SampleTripsSchemaV3.Trip>(
            predicate: #Predicate { $0.destination == "France" || $0.destination == "Japan" },
            sortBy: [SortDescriptor(\.startDate)])
        descriptor.fetchLimit = 10
        let trips = try context.fetch(descriptor)
        #expect(trips.map(\.name) == ["Paris", "Kyoto"], "the duplicate Paris trip went in willMigrate")
        #expect(trips.first?.startDate == start, "start_date became startDate")
        #expect(trips.last?.endDate == start + 15 * day)
        #expect(trips.map { $0.bucketList.map(\.title) } == [["See France"], ["See Japan"]])
        #expect(try context.fetchCount(FetchDescriptor<SampleTripsSchemaV3.BucketListItem>()) == 2, "the cascade took the duplicate's item")
    }

    /// A one-argument `didMigrate` with a body runs after the store took the new
    /// model, on objects of the new version, and what it saves stays.
    @Test func aOneArgumentDidMigrateRunsOnTheNewModel() throws {
        let dir = try TemporaryDirectory("swiftdata-did-migrate")
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.path)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        do {
            let container = try ModelContainer(for: SampleTripsSchemaV1.Trip.self, SampleTripsSchemaV1.BucketListItem.self,
                                               configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            for (name, destination) in [("Paris", "France"), ("Kyoto", "Japan")] {
                context.insert(SampleTripsSchemaV1.Trip(name: name, destination: destination, start_date: now, end_date: now))
            }
            try context.save()
            try container.close()
        }
        let container = try ModelContainer(for: SampleTripsSchemaV2.Trip.self, SampleTripsSchemaV2.BucketListItem.self,
                                           migrationPlan: SampleTripsUppercasingPlan.self,
                                           configurations: ModelConfiguration(url: url))
        defer { try? container.close() }
        let trips = try ModelContext(container).fetch(FetchDescriptor<SampleTripsSchemaV2.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Kyoto", "Paris"], "every trip came across")
        #expect(trips.map(\.destination) == ["JAPAN", "FRANCE"], "didMigrate's save stayed")
    }

    /// `@Attribute(.externalStorage)`: the bytes live in the blob area, not the record,
    /// and read back whole.
    @Test func anExternalStorageAttributeKeepsItsBytesInTheBlobArea() throws {
        let dir = try TemporaryDirectory("swiftdata-external-storage")
        defer { dir.remove() }
        let container = try ModelContainer(for: TripPhoto.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: dir.path)))
        defer { try? container.close() }
        // Bytes that do not compress, as a photo's: the blob area's size is then the image's.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let image = Data((0..<(256 << 10)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        })
        let context = ModelContext(container)
        context.insert(TripPhoto(caption: "Louvre", image: image))
        try context.save()

        #expect(container.store.model.entity(named: "TripPhoto")?.attributesByName["image"]?.allowsExternalStorage == true)
        #expect(container.store.usage.blobBytes >= Int64(image.count), "the image went to the blob area")
        #expect(container.store.usage.recordBytes < Int64(image.count), "and not into the record")
        let photos = try ModelContext(container).fetch(FetchDescriptor<TripPhoto>())
        #expect(photos.map(\.caption) == ["Louvre"])
        #expect(photos.first?.image == image)
    }

    /// As in SwiftData, a new model linked to one a context holds joins the context:
    /// through a to-one set on it, and through a to-many.
    @Test func aModelLinkedToAnInsertedOneIsInsertedWithIt() throws {
        let dir = try TemporaryDirectory("swiftdata-linked-insert")
        defer { dir.remove() }
        let container = try ModelContainer(for: SampleTripsSchemaV1.Trip.self, SampleTripsSchemaV1.BucketListItem.self,
                                           configurations: ModelConfiguration(url: URL(fileURLWithPath: dir.path)))
        defer { try? container.close() }
        let context = ModelContext(container)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let paris = SampleTripsSchemaV1.Trip(name: "Paris", destination: "France", start_date: now, end_date: now)
        context.insert(paris)
        let museum = SampleTripsSchemaV1.BucketListItem(title: "Louvre", details: "")
        museum.trip = paris
        let lone = SampleTripsSchemaV1.BucketListItem(title: "Kinkaku-ji", details: "")
        context.insert(lone)
        let kyoto = SampleTripsSchemaV1.Trip(name: "Kyoto", destination: "Japan", start_date: now, end_date: now)
        kyoto.bucketList = [lone]
        try context.save()

        let reader = ModelContext(container)
        let trips = try reader.fetch(FetchDescriptor<SampleTripsSchemaV1.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Kyoto", "Paris"])
        #expect(trips.map { $0.bucketList.map(\.title) } == [["Kinkaku-ji"], ["Louvre"]])
    }

    /// SwiftData's stage forms and the two-argument one hold together in one plan's
    /// `static let`s; a custom stage without hooks is the lightweight one.
    @Test func stagesAreSendableValues() {
        let stages: [any Sendable] = SampleTripsMigrationPlan.stages
        #expect(stages.count == 2)
        let withCarry = MigrationStage.custom(fromVersion: SampleTripsSchemaV1.self, toVersion: SampleTripsSchemaV2.self,
                                              willMigrate: { _ in MigrationCarry() }, didMigrate: { _, _ in })
        let bare = MigrationStage.custom(fromVersion: SampleTripsSchemaV1.self, toVersion: SampleTripsSchemaV2.self,
                                         willMigrate: nil, didMigrate: nil)
        guard case .custom = withCarry else {
            Issue.record("expected a custom stage, got \(withCarry)")
            return
        }
        // No hooks: the stage is the inferred one, free to run in place.
        guard case .lightweight = bare else {
            Issue.record("expected a lightweight stage, got \(bare)")
            return
        }
    }
}
