// Usage: StrataFixtureWriter lifecycle STORE MODEL.json DATA.jsonl
//        StrataFixtureWriter layouts STORE V1.json V2.json V3.json DATA.jsonl
//        StrataFixtureWriter history STORE MODEL.json DATA.jsonl
// Writes a committed fixture store that the `strata` command cannot make at fixture
// size (Fixtures/stores/README.md, run by Fixtures/stores/regenerate.sh).
import Foundation

let usage = """
    usage: StrataFixtureWriter lifecycle STORE MODEL.json DATA.jsonl
           StrataFixtureWriter layouts STORE V1.json V2.json V3.json DATA.jsonl
           StrataFixtureWriter history STORE MODEL.json DATA.jsonl
    """
let arguments = CommandLine.arguments
do {
    if arguments.count == 5, arguments[1] == "lifecycle" {
        try LifecycleFixture(store: arguments[2], modelFile: arguments[3], dataFile: arguments[4]).write()
    } else if arguments.count == 5, arguments[1] == "history" {
        try HistoryFixture(store: arguments[2], modelFile: arguments[3], dataFile: arguments[4]).write()
    } else if arguments.count == 7, arguments[1] == "layouts" {
        try LayoutsFixture(store: arguments[2], models: Array(arguments[3...5]), dataFile: arguments[6]).write()
    } else {
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("StrataFixtureWriter: \(error)\n".utf8))
    exit(1)
}
