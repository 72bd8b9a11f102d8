import ArgumentParser
import Strata

/// `strata verify STORE`: the engine's checks (every frame, hint file and blob
/// reference), then, for an object store, the object checks of `ObjectVerifier`.
/// Exit 0 when sound, 1 with file and offset or object and reason when not, 2 when
/// it cannot run (no store at the path).
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every frame, index and blob reference, and every object against the store's model; exit 0 when sound, 1 with file, offset or object and reason when not."
    )

    @Argument(help: "The store directory.")
    var store: String

    func run() throws {
        try reportingFailures {
            let log = try StoreAccess.openLog(store)
            let engine: VerifyReport
            let model: ObjectModel?
            do {
                defer { try? log.close() }
                engine = try log.verify()
                print(engine)
                model = try StoreAccess.storedModel(of: log)
            }
            var sound = engine.isSound
            if let model {
                var options = StoreOptions()
                // The tool moves transformable bytes as they are; it never decodes them.
                options.requiresValueTransformers = false
                options.log.readOnly = true
                options.log.createIfMissing = false
                options.logger = CLILogging.logger
                let objectStore = try ObjectStore(at: store, model: model, options: options)
                defer { try? objectStore.close() }
                let report = try ObjectVerifier(store: objectStore).run()
                print(report)
                sound = sound && report.problems.isEmpty
            } else {
                print("objects: the store has no object model; object checks skipped")
            }
            if !sound { throw ExitCode(1) }
        }
    }
}
