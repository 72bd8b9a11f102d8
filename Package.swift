// swift-tools-version:6.1
import PackageDescription

// Strata: an embedded, append-only, log-structured object store.
// Layers (DESIGN.md): CLZ4 → StrataLog (storage engine) → Strata (object layer) → strata (CLI).
let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataLog", targets: ["StrataLog"]),
        .executable(name: "strata", targets: ["StrataCLI"]),
        // The fuzz targets' entry functions, shared by the libFuzzer executables in
        // Fuzz/ (a package of its own) and the corpus replay in the tests.
        .library(name: "StrataFuzzing", targets: ["StrataFuzzing"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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
        .target(
            name: "StrataLog",
            dependencies: [
                "CLZ4",
                "CStrataCRC",
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
        .executableTarget(
            name: "StrataCLI",
            dependencies: [
                "Strata",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A child process for the crash tests: it writes, prints each acknowledged
        // commit, and is killed with SIGKILL by the test at a random moment.
        .executableTarget(
            name: "StrataCrashWorker",
            dependencies: ["StrataLog", "Strata", "StrataTestSupport"]
        ),
        // Writes the committed fixture stores the `strata` command cannot make at fixture
        // size (Fixtures/stores/regenerate.sh).
        .executableTarget(
            name: "StrataFixtureWriter",
            dependencies: ["Strata", "StrataTestSupport"]
        ),
        .target(
            name: "StrataFuzzing",
            dependencies: ["Strata", "StrataLog", .product(name: "Logging", package: "swift-log")]
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
            dependencies: ["Strata", "StrataLog", "StrataTestSupport", "StrataCrashWorker", "StrataFixtureWriter", "StrataFuzzing"]
        ),
        .testTarget(
            name: "StrataCLITests",
            dependencies: ["StrataCLI", "Strata", "StrataTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
