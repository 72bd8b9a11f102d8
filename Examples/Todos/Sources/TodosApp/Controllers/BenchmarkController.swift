import Hummingbird

/// TechEmpower's JSON and database tests, over any ``Repository``.
///
/// `/queries` and `/updates` read their rows one request to the store at a time, as
/// the benchmark's rules require; `/updates` then writes all of its new numbers in
/// one transaction (batched updates are allowed), durable before the response.
struct BenchmarkController<Store: Repository> {
    let repository: Store

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("json", use: json)
        router.get("db", use: singleQuery)
        router.get("queries", use: multipleQueries)
        router.get("updates", use: updates)
        for path in ["json", "db", "queries", "updates"] {
            router.routes(RouterPath(path), allowing: [.get])
        }
    }

    struct Message: ResponseEncodable {
        var message: String
    }

    @Sendable func json(request: Request, context: AppRequestContext) -> Message {
        Message(message: "Hello, World!")
    }

    @Sendable func singleQuery(request: Request, context: AppRequestContext) async throws -> World {
        try await randomWorld()
    }

    @Sendable func multipleQueries(request: Request, context: AppRequestContext) async throws -> [World] {
        let count = request.queryCount
        var rows: [World] = []
        rows.reserveCapacity(count)
        for _ in 0..<count { rows.append(try await randomWorld()) }
        return rows
    }

    @Sendable func updates(request: Request, context: AppRequestContext) async throws -> [World] {
        let count = request.queryCount
        var rows: [World] = []
        rows.reserveCapacity(count)
        for _ in 0..<count {
            var row = try await randomWorld()
            row.randomNumber = World.randomValue()
            rows.append(row)
        }
        try await repository.updateWorlds(rows)
        return rows
    }

    private func randomWorld() async throws -> World {
        let id = World.randomValue()
        guard let row = try await repository.world(id: id) else { throw APIError.notFound("World \(id)") }
        return row
    }
}
