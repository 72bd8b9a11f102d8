import BenchSupport
import Foundation

/// Memory-heavy parts of scenario 1 run in a fresh child process of BenchSummary
/// (`BenchSummary --child TASK DIRECTORY`), so that their peak resident memory is
/// theirs alone — not the parent's employees, fixtures or earlier workloads. The child
/// prints its `Sample` as one line of JSON.
enum ChildProcess {
    static let flag = "--child"

    /// The child's side: runs `task` on `directory` and prints the sample.
    static func main(task name: String, directory: String) -> Never {
        do {
            let iteration: WorkloadIteration
            if let task = PhotoTask(rawValue: name) {
                iteration = try task.iteration(in: directory)
            } else if let task = ReadTask(rawValue: name) {
                iteration = try task.iteration(in: directory)
            } else if let task = HistoryTask(rawValue: name) {
                iteration = try task.iteration(in: directory)
            } else if let task = RecoveryTask(rawValue: name) {
                iteration = try task.iteration(in: directory)
            } else {
                throw BenchError("unknown child task \(name)")
            }
            var sample = try Sample.once(iteration, resetPeak: false)
            sample.isolated = true
            let data = try JSONEncoder().encode(sample)
            FileHandle.standardOutput.write(data + Data("\n".utf8))
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("child \(name) failed: \(error)\n".utf8))
            exit(1)
        }
    }

    /// The parent's side: runs `task` for `scenario` in a child `repetitions` times,
    /// each on the fixture (or a fresh copy of it, made before the child starts).
    static func measure(_ task: PhotoTask, _ scenario: PhotoScenario, repetitions: Int) throws -> Sample {
        var samples: [Sample] = []
        for _ in 0..<max(1, repetitions) {
            let (directory, scratch) = try task.prepare(scenario)
            defer { scratch?.remove() }
            samples.append(try run(task.rawValue, directory: directory))
        }
        return Sample.combine(samples)
    }

    /// Each of `tasks` `repetitions` times in fresh child processes, taking turns as
    /// `Sample.measureInTurns` does, so that a slow stretch falls on every side alike.
    static func measureInTurns(_ tasks: [PhotoTask], _ scenario: PhotoScenario, repetitions: Int) throws -> [Sample] {
        var samples = [[Sample]](repeating: [], count: tasks.count)
        for _ in 0..<max(1, repetitions) {
            for (i, task) in tasks.enumerated() {
                let (directory, scratch) = try task.prepare(scenario)
                defer { scratch?.remove() }
                samples[i].append(try run(task.rawValue, directory: directory))
            }
        }
        return samples.map(Sample.combine)
    }

    /// Runs the child task named `task` (a `PhotoTask` or `ReadTask`) once on `directory`.
    static func run(_ task: String, directory: String) throws -> Sample {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [flag, task, directory]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("child \(task) exited with \(process.terminationStatus)")
        }
        guard let line = data.split(separator: UInt8(ascii: "\n")).last else {
            throw BenchError("child \(task) printed nothing")
        }
        return try JSONDecoder().decode(Sample.self, from: Data(line))
    }
}
