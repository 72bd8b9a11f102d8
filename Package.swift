// swift-tools-version:6.1
import CompilerPluginSupport
import PackageDescription

// Strata: an embedded, append-only, log-structured object store.
// Layers (README.md, "What is where"): CLZ4 → StrataLog (storage engine) → Strata (object layer) → strata (CLI).
let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataLog", targets: ["StrataLog"]),
        // Typed models (@Model, #Predicate fetches, versioned schemas). Only this product
        // builds swift-syntax (for its macros); the plain `Strata` product does not.
        .library(name: "StrataData", targets: ["StrataData"]),
        // A store inside a service: a swift-service-lifecycle `Service` that opens,
        // maintains and closes it, and metrics through swift-metrics. `Strata` itself
        // depends on neither.
        .library(name: "StrataService", targets: ["StrataService"]),
        // A store type on PostgreSQL (`StoreType.postgres`), through postgres-nio. Built
        // only with the `Postgres` trait, so that a default build compiles no NIO.
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
        .executable(name: "strata", targets: ["StrataCLI"]),
        // Scenario 1's models and migration policy, defined once for the demo, the
        // crash worker, the benchmarks and the tests (and for trying Strata out).
        .library(name: "StrataScenarios", targets: ["StrataScenarios"]),
        // The fuzz targets' entry functions, shared by the libFuzzer executables in
        // Fuzz/ (a package of its own) and the corpus replay in the tests.
        .library(name: "StrataFuzzing", targets: ["StrataFuzzing"]),
    ],
    traits: [
        .trait(name: "Postgres", description: "The PostgreSQL store type (StrataPostgres), on postgres-nio."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // `make docs`: every DocC catalog built with warnings as errors.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLZ4",
            path: "Sources/CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"]), .brew(["lz4"])]
        ),
        // CRC-32C on the CPU's instruction (SSE 4.2 / ARMv8 CRC), chosen at run time.
        .target(name: "CStrataCRC"),
        // sync_file_range and pthread_setname_np, which Glibc's module does not import
        // (GNU extensions).
        .target(name: "CStrataIO"),
        .target(
            name: "StrataLog",
            dependencies: [
                "CLZ4",
                "CStrataCRC",
                "CStrataIO",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "Strata",
            dependencies: [
                "StrataLog",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The compiler plug-in behind StrataData's @Model, @Attribute, @Relationship,
        // @Transient, #Unique and #Index.
        // The macros' implementation as a plain library, for their expansion tests: a test
        // target that depends on a macro target makes SwiftPM build every test target for
        // the host, where the crash worker's module is missing. The macro target compiles
        // the same files (Sources/StrataMacros/Implementation links here), so the plug-in
        // names its types StrataMacros.* as `#externalMacro` expects.
        .target(
            name: "StrataMacroKit",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        .macro(
            name: "StrataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "StrataData",
            dependencies: ["Strata", "StrataMacros"]
        ),
        .target(
            name: "StrataService",
            dependencies: [
                "Strata",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Its code is under `#if Postgres`: without the trait the module is empty and
        // nothing of NIO is built.
        .target(
            name: "StrataPostgres",
            dependencies: [
                "Strata",
                "StrataLog",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Postgres"])),
            ]
        ),
        // JSON Lines as `strata import` reads and `export` writes them: the line decoder
        // (fast, driven by the entity's properties, with Foundation's JSONDecoder as its
        // reference), value conversion, dates. A library of its own so that the fuzz
        // targets reach the decoder; the object layer knows nothing of JSON Lines.
        .target(
            name: "StrataImport",
            dependencies: ["Strata"]
        ),
        .target(
            name: "StrataScenarios",
            dependencies: ["Strata"]
        ),
        .executableTarget(
            name: "StrataCLI",
            dependencies: [
                "Strata",
                "StrataScenarios",
                "StrataPostgres",
                "StrataImport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A child process for the crash tests: it writes, prints each acknowledged
        // commit, and is killed with SIGKILL by the test at a random moment.
        .executableTarget(
            name: "StrataCrashWorker",
            dependencies: ["StrataLog", "Strata", "StrataPostgres", "StrataScenarios", "StrataTestSupport"]
        ),
        // Writes the committed fixture stores the `strata` command cannot make at fixture
        // size (Fixtures/stores/regenerate.sh).
        .executableTarget(
            name: "StrataFixtureWriter",
            dependencies: ["Strata", "StrataTestSupport"]
        ),
        .target(
            name: "StrataFuzzing",
            dependencies: ["Strata", "StrataLog", "StrataImport", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "StrataTestSupport",
            dependencies: ["StrataLog", .product(name: "Logging", package: "swift-log")],
            path: "Tests/StrataTestSupport"
        ),
        .testTarget(
            name: "StrataLogTests",
            dependencies: ["StrataLog", "StrataTestSupport", "StrataCrashWorker"]
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: ["Strata", "StrataLog", "StrataPostgres", "StrataScenarios", "StrataTestSupport", "StrataCrashWorker", "StrataFixtureWriter", "StrataFuzzing"]
        ),
        .testTarget(
            name: "StrataServiceTests",
            dependencies: [
                "StrataService", "Strata", "StrataTestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "StrataDataTests",
            dependencies: ["StrataData", "Strata", "StrataScenarios", "StrataTestSupport"]
        ),
        .testTarget(
            name: "StrataMacroKitTests",
            dependencies: [
                "StrataMacroKit",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "StrataImportTests",
            dependencies: ["StrataImport", "Strata", "StrataFuzzing"]
        ),
        .testTarget(
            name: "StrataCLITests",
            dependencies: ["StrataCLI", "Strata", "StrataLog", "StrataImport", "StrataTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
