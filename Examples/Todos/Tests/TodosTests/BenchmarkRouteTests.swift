import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TodosApp

@Suite("TechEmpower routes")
struct BenchmarkRouteTests {
    @Test("json, db, queries and updates, with the query count clamped", arguments: engines)
    func routes(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let app = try await buildApplication(TestArguments(engine: engine, dataPath: directory))
            try await app.test(.router) { client in
                try await client.execute(uri: "/json", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == #"{"message":"Hello, World!"}"#)
                }
                try await client.execute(uri: "/db", method: .get) { response in
                    #expect(response.status == .ok)
                    let row = try response.decoded(as: World.self)
                    #expect((1...World.count).contains(row.id))
                    #expect((1...World.count).contains(row.randomNumber))
                }
                let expectedCounts = ["": 1, "?queries=": 1, "?queries=abc": 1, "?queries=0": 1, "?queries=-3": 1,
                                      "?queries=1": 1, "?queries=20": 20, "?queries=500": 500, "?queries=501": 500, "?queries=100000": 500,
                                      "?queries=99999999999999999999": 500, "?queries=+99999999999999999999": 500,
                                      "?queries=-99999999999999999999": 1, "?queries=+": 1]
                for (query, count) in expectedCounts.sorted(by: { $0.key < $1.key }) {
                    try await client.execute(uri: "/queries\(query)", method: .get) { response in
                        #expect(response.status == .ok)
                        let rows = try response.decoded(as: [World].self)
                        #expect(rows.count == count, "/queries\(query)")
                        #expect(rows.allSatisfy { (1...World.count).contains($0.id) })
                    }
                }
                for (query, count) in [("?queries=0", 1), ("?queries=x", 1), ("?queries=20", 20), ("?queries=501", 500)] {
                    try await client.execute(uri: "/updates\(query)", method: .get) { response in
                        #expect(response.status == .ok)
                        let rows = try response.decoded(as: [World].self)
                        #expect(rows.count == count, "/updates\(query)")
                        #expect(rows.allSatisfy { (1...World.count).contains($0.id) && (1...World.count).contains($0.randomNumber) })
                    }
                }
            }
        }
    }

    @Test("updates are persisted: every row's last written number is read back after a reopen", arguments: engines)
    func updatesPersist(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let arguments = TestArguments(engine: engine, dataPath: directory)
            let batches = try await buildApplication(arguments).test(.router) { client in
                var batches: [[World]] = []
                for _ in 0..<5 {
                    batches.append(try await client.execute(uri: "/updates?queries=20", method: .get) { response in
                        try response.decoded(as: [World].self)
                    })
                }
                return batches
            }
            var written: [Int: Int] = [:]
            for row in batches.joined() { written[row.id] = row.randomNumber }
            let repository: any Repository = try await openRepository(arguments)
            for (id, number) in written {
                #expect(try await repository.world(id: id)?.randomNumber == number, "World \(id)")
            }
            try await closeRepository(repository)
        }
    }

    @Test("both engines start from the same World table", arguments: engines)
    func identicalSeed(engine: Engine) async throws {
        try await withTemporaryDirectory { directory in
            let repository = try await openRepository(TestArguments(engine: engine, dataPath: directory))
            for id in [1, 2, 5_000, World.count] {
                let row = try #require(try await repository.world(id: id))
                #expect(row == World.initialRows()[id - 1])
            }
            #expect(try await repository.world(id: World.count + 1) == nil)
            try await closeRepository(repository)
        }
    }
}
