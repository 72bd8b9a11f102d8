// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for Strata (docs/FUZZING.md), a package of its own so that the
// library's build never pulls them. Each executable holds only libFuzzer's entry
// point; the work is in the root package's StrataFuzzing module, which the tests
// also call to replay Fuzz/Corpus. Build and run with `make fuzz` (the recipe:
// swift build --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address).
let package = Package(
    name: "StrataFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Strata", path: ".."),
    ],
    targets: [
        .executableTarget(name: "FuzzSegment", dependencies: [.product(name: "StrataFuzzing", package: "Strata")]),
        .executableTarget(name: "FuzzRecordsBlock", dependencies: [.product(name: "StrataFuzzing", package: "Strata")]),
        .executableTarget(name: "FuzzIndex", dependencies: [.product(name: "StrataFuzzing", package: "Strata")]),
        .executableTarget(name: "FuzzManifest", dependencies: [.product(name: "StrataFuzzing", package: "Strata")]),
        .executableTarget(name: "FuzzBlob", dependencies: [.product(name: "StrataFuzzing", package: "Strata")]),
        .executableTarget(name: "FuzzObjectRecord", dependencies: [.product(name: "StrataFuzzing", package: "Strata")]),
        .executableTarget(name: "FuzzStore", dependencies: [.product(name: "StrataFuzzing", package: "Strata")]),
        .executableTarget(name: "FuzzModel", dependencies: [.product(name: "StrataFuzzing", package: "Strata")]),
        .executableTarget(name: "FuzzPredicate", dependencies: [.product(name: "StrataFuzzing", package: "Strata")]),
        .executableTarget(name: "FuzzMapping", dependencies: [.product(name: "StrataFuzzing", package: "Strata")]),
        .executableTarget(name: "FuzzImportLine", dependencies: [.product(name: "StrataFuzzing", package: "Strata")]),
    ],
    swiftLanguageModes: [.v6]
)
