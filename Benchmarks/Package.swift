// swift-tools-version:6.1
import PackageDescription

// Strata's benchmarks: a package of their own, so that building the library never
// pulls benchmark-only code (DESIGN.md). Every workload runs Strata and its peer,
// SQLite through GRDB, on the same data in the same run; BenchSummary prints the
// Strata/SQLite ratios side by side.
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named explicitly: a path package is otherwise known by its directory name,
        // which differs between checkouts (main, strata, a worktree…).
        .package(name: "Strata", path: "..", traits: ["Postgres"]),
        // The trait is required: without it resolution asks for a package the mirror lacks.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Only to hand the engine a no-op logger: its default logger prints every open.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Workload data (deterministic employees), their compact encoding, and one
        // driver per engine behind a common protocol; shared by both runners.
        .target(
            name: "BenchSupport",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataData", package: "Strata"),
                .product(name: "StrataScenarios", package: "Strata"),
                .product(name: "StrataLog", package: "Strata"),
                .product(name: "StrataPostgres", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `swift run -c release BenchSummary`: both sides of each workload in one
        // process, printed as a table of figures and ratios.
        .executableTarget(
            name: "BenchSummary",
            dependencies: ["BenchSupport"]
        ),
        // `swift run -c release BenchProfile MODE`: one object-layer workload on Strata's
        // side alone, repeated, for callgrind or perf.
        .executableTarget(
            name: "BenchProfile",
            dependencies: ["BenchSupport"]
        ),
        // What both package-benchmark targets share: the three metric sets, thresholds,
        // and registering a workload so that only its measured part is timed.
        .target(
            name: "BenchmarkHarness",
            dependencies: [
                "BenchSupport",
                .product(name: "Benchmark", package: "benchmark"),
            ]
        ),
        // package-benchmark targets: `swift package benchmark`. Each benchmark runs in
        // a process of its own. The engine (StrataLog) against SQLite…
        .executableTarget(
            name: "EngineBenchmarks",
            dependencies: [
                "BenchSupport",
                "BenchmarkHarness",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/EngineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // …and the object layer (Strata: contexts, fetch requests, migration,
        // compaction) against SQLite.
        .executableTarget(
            name: "ObjectBenchmarks",
            dependencies: [
                "BenchSupport",
                "BenchmarkHarness",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ObjectBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
