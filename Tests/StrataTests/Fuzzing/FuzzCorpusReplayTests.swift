import Foundation
import Testing
import StrataFuzzing
import StrataTestSupport

/// Every committed corpus file of every fuzz target (`Fuzz/Corpus/<target>/`) goes
/// through the same entry function the libFuzzer executable calls: an input the
/// fuzzer once found interesting — or that once crashed — keeps being handled.
@Suite struct FuzzCorpusReplayTests {
    static var corpusRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")
    }

    static func corpus(of target: FuzzTarget) -> [URL] {
        let directory = corpusRoot.appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everyCorpusFileIsHandled(target: FuzzTarget) throws {
        let files = Self.corpus(of: target)
        #expect(!files.isEmpty, "no seed corpus for \(target.rawValue)")
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            let finding = target.run(bytes)
            #expect(finding == nil, "\(target.rawValue)/\(file.lastPathComponent): \(finding?.description ?? "")")
        }
    }

    /// The oracles can fail: a manifest that does not decode is refused, not a finding,
    /// but the store target reports a template it could not build.
    @Test func theStoreTemplateBuildsAndAnUneditedStorePasses() {
        #expect(FuzzTarget.store.run([0, 0, 0]) == nil)
        #expect(FuzzTarget.store.run([1, 0, 0]) == nil)
    }
}

/// Writes the seed corpus when `STRATA_WRITE_FUZZ_SEEDS=1` (`make fuzz-seeds`);
/// otherwise checks that every target has seeds to write.
@Suite struct FuzzSeedTests {
    @Test func everyTargetHasSeeds() throws {
        let models = try FileManager.default.contentsOfDirectory(atPath: FixturePaths.root + "/models")
            .filter { $0.hasSuffix(".json") }.sorted()
            .map { [UInt8](try Data(contentsOf: FixturePaths.model($0))) }
        let write = ProcessInfo.processInfo.environment["STRATA_WRITE_FUZZ_SEEDS"] == "1"
        for target in FuzzTarget.allCases {
            let seeds = FuzzSeeds.seeds(for: target, modelFiles: models)
            #expect(!seeds.isEmpty, "\(target.rawValue) has no seeds")
            for seed in seeds { #expect(target.run(seed) == nil, "seed of \(target.rawValue)") }
            guard write else { continue }
            let directory = FuzzCorpusReplayTests.corpusRoot.appendingPathComponent(target.rawValue)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (n, seed) in seeds.enumerated() {
                try Data(seed).write(to: directory.appendingPathComponent(String(format: "seed-%03d", n)))
            }
        }
    }
}
