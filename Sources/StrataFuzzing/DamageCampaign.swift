import Foundation
import Strata

/// The structure-aware corruption test: every case of the catalogue (one field of one
/// file of the template edited, checksums recomputed) is opened and read as the
/// untouched template is, and judged against it. A damaged store may refuse to open or
/// refuse a read with a `StrataError`; it must never answer differently. A wrong answer
/// is checked with `verify`: a store that finds itself sound is the worst case (silent
/// wrong). A trap or a hang is a finding too; `DamageWatch` names the case.
///
/// ```swift
/// let summary = DamageCampaign.run(.fromEnvironment)
/// print(summary)    // the table per category, then every case that was not fine
/// ```
public enum DamageCampaign {
    public struct Options: Sendable {
        /// The templates to damage: records and blobs uncompressed (false), compressed (true).
        public var variants: [Bool] = [false]
        /// At most this many cases per category, spread evenly over it (nil: all).
        public var perCategory: Int? = nil
        /// Only cases whose edit or category contains this text.
        public var filter: String? = nil
        /// Print each case and its outcome to standard error.
        public var trace = false
        /// A journal file (`DamageJournal`): cases it holds are not run again, and the
        /// case a trap or hang interrupted is recorded as such.
        public var journal: String? = nil

        public init(variants: [Bool] = [false], perCategory: Int? = nil, filter: String? = nil, trace: Bool = false, journal: String? = nil) {
            self.variants = variants
            self.perCategory = perCategory
            self.filter = filter
            self.trace = trace
            self.journal = journal
        }

        /// A sample of `perCategory` cases a category of the uncompressed template, or,
        /// with `STRATA_DAMAGE_FULL=1`, every case of both templates;
        /// `STRATA_DAMAGE_FILTER` picks cases by text, `STRATA_DAMAGE_TRACE=1` prints
        /// each, `STRATA_DAMAGE_JOURNAL=path` keeps a journal.
        public static func fromEnvironment(perCategory: Int) -> Options {
            let environment = ProcessInfo.processInfo.environment
            let full = environment["STRATA_DAMAGE_FULL"] == "1"
            let filter = environment["STRATA_DAMAGE_FILTER"].flatMap { $0.isEmpty ? nil : $0 }
            return Options(variants: full ? [false, true] : [false], perCategory: full || filter != nil ? nil : perCategory,
                           filter: filter, trace: environment["STRATA_DAMAGE_TRACE"] == "1",
                           journal: environment["STRATA_DAMAGE_JOURNAL"].flatMap { $0.isEmpty ? nil : $0 })
        }
    }

    /// Every case the options select, without running them: category and edit.
    public static func catalogue(_ options: Options) -> [(category: String, edit: String)] {
        options.variants.flatMap { compressed in
            select(DamageCatalogue.cases(DamageTemplate.files[compressed] ?? [:], compressed: compressed), options).map { ($0.category, $0.description) }
        }
    }

    public static func run(_ options: Options) -> DamageSummary {
        var summary = DamageSummary()
        guard let model = DamageTemplate.v2 else {
            summary.harnessProblems.append("the template's model does not build")
            return summary
        }
        var journal: DamageJournal?
        if let path = options.journal {
            journal = DamageJournal(path: path)
            if journal == nil { summary.harnessProblems.append("the journal \(path) cannot be opened") }
        }
        DamageWatch.start(journal: journal)
        defer { DamageWatch.end() }
        for compressed in options.variants {
            let files: [String: [UInt8]]
            do {
                files = try DamageTemplate.built[compressed]?.get() ?? [:]
            } catch {
                summary.harnessProblems.append("the template (compressed: \(compressed)) did not build: \(error)")
                continue
            }
            let baseline: DamageReading
            do {
                baseline = try read(files, model: model, compressed: compressed, baseline: nil)
            } catch {
                summary.harnessProblems.append("the untouched template (compressed: \(compressed)) does not open: \(error)")
                continue
            }
            let unanswered = baseline.names.filter { name in
                guard let answer = baseline.answers[name] else { return true }
                switch answer {
                case .refused, .foreign, .absent: return true
                default: return false
                }
            }
            if !unanswered.isEmpty {
                summary.harnessProblems.append("the untouched template refuses reads: " + unanswered.prefix(3).map { "\($0): \(baseline.answers[$0]!)" }.joined(separator: "; "))
                continue
            }
            for damage in select(DamageCatalogue.cases(files, compressed: compressed), options) {
                let key = DamageJournal.key(damage)
                let finding: DamageFinding
                if let recorded = journal?.done[key] {
                    finding = recorded
                } else {
                    if options.trace { FileHandle.standardError.write(Data("damage case: \(damage.description)\n".utf8)) }
                    journal?.begin(key)
                    DamageWatch.begin(damage.description)
                    finding = judge(damage, files: files, model: model, compressed: compressed, baseline: baseline)
                    journal?.end(key, finding)
                }
                summary.add(damage.category, finding.outcome)
                if options.trace { FileHandle.standardError.write(Data("  → \(finding.outcome) \(finding.differences.first ?? "")\n".utf8)) }
                if damage.category.hasSuffix(" control"), finding.outcome != .equal {
                    summary.harnessProblems.append("a control case did not read equal: \(finding)")
                }
                if !finding.outcome.isFine { summary.findings.append(finding) }
            }
        }
        return summary
    }

    /// The cases `options` select: by text, then per category at most `perCategory`,
    /// spread evenly over the category (the same ones every run).
    static func select(_ cases: [DamageCase], _ options: Options) -> [DamageCase] {
        var selected = cases
        if let filter = options.filter { selected = selected.filter { $0.description.contains(filter) || $0.category.contains(filter) } }
        guard let limit = options.perCategory else { return selected }
        var byCategory: [String: [Int]] = [:]
        for (n, damage) in selected.enumerated() { byCategory[damage.category, default: []].append(n) }
        var keep = Set<Int>()
        for indices in byCategory.values {
            if indices.count <= limit { keep.formUnion(indices); continue }
            for k in 0..<limit { keep.insert(indices[k * indices.count / limit]) }
        }
        return selected.enumerated().filter { keep.contains($0.offset) }.map(\.element)
    }

    /// Opens the files as a store and reads them as the oracle does.
    static func read(_ files: [String: [UInt8]], model: ObjectModel, compressed: Bool, baseline: DamageReading?) throws -> DamageReading {
        let store = try open(files, model: model, compressed: compressed)
        defer { try? store.close() }
        return DamageReading.read(store, baseline: baseline)
    }

    static func open(_ files: [String: [UInt8]], model: ObjectModel, compressed: Bool) throws -> ObjectStore {
        let memory = InMemoryFileSystem()
        for directory in ["", "/segments", "/index", "/blobs"] { try memory.createDirectory(DamageTemplate.root + directory) }
        for (path, contents) in files { try memory.setBytes(contents, of: path) }
        memory.makeAllDurable()
        return try ObjectStore(at: DamageTemplate.root, model: model, options: DamageTemplate.options(memory, compressed: compressed))
    }

    /// Runs one case: the template with the case's edit, opened and read, each read
    /// compared with the baseline's.
    static func judge(_ damage: DamageCase, files: [String: [UInt8]], model: ObjectModel, compressed: Bool,
                      baseline: DamageReading) -> DamageFinding {
        var finding = DamageFinding(category: damage.category, edit: damage.description, outcome: .equal, differences: [], differenceCount: 0)
        var edited = files
        edited[damage.path] = damage.edit(files[damage.path] ?? [])
        let store: ObjectStore
        do {
            store = try open(edited, model: model, compressed: compressed)
        } catch let error as StrataError {
            finding.outcome = .refusedAtOpen
            finding.differences = ["open: \(error)"]
            return finding
        } catch {
            finding.outcome = .foreignError
            finding.differences = ["open threw \(type(of: error)): \(error)"]
            return finding
        }
        defer { try? store.close() }
        let reading = DamageReading.read(store, baseline: baseline)
        var differences: [String] = [], foreign: [String] = [], refused: [String] = []
        for name in baseline.names {
            guard let want = baseline.answers[name], let got = reading.answers[name] else { continue }
            switch got {
            case .refused: refused.append("\(name): \(got)")
            case .foreign: foreign.append("\(name): \(got)")
            default: if !want.matches(got) { differences.append("\(name): \(want) → \(got)") }
            }
        }
        finding.differenceCount = differences.count
        finding.refusals = Array(refused.prefix(2))
        finding.refusalCount = refused.count
        if !differences.isEmpty {
            finding.differences = Array(differences.prefix(4))
            do {
                let report = try store.verify()
                if report.isSound {
                    finding.outcome = .silentWrong
                } else {
                    finding.outcome = .wrongVerifyReports
                    finding.verify = report.problems.first.map { "\($0)" }
                }
            } catch {
                finding.outcome = .wrongVerifyReports
                finding.verify = "threw \(error)"
            }
        } else if !foreign.isEmpty {
            finding.outcome = .foreignError
            finding.differences = Array(foreign.prefix(4))
            finding.differenceCount = foreign.count
        } else if !refused.isEmpty {
            finding.outcome = .refusedOnRead
        }
        return finding
    }
}
