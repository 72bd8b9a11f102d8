// Usage: StrataFixtureWriter lifecycle STORE MODEL.json DATA.jsonl
// Writes a committed fixture store that the `strata` command cannot make at fixture
// size (Fixtures/stores/README.md, run by Fixtures/stores/regenerate.sh).
import Foundation

let usage = "usage: StrataFixtureWriter lifecycle STORE MODEL.json DATA.jsonl"
let arguments = CommandLine.arguments
guard arguments.count == 5, arguments[1] == "lifecycle" else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}
do {
    try LifecycleFixture(store: arguments[2], modelFile: arguments[3], dataFile: arguments[4]).write()
} catch {
    FileHandle.standardError.write(Data("StrataFixtureWriter: \(error)\n".utf8))
    exit(1)
}
