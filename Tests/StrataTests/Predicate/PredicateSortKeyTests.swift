import Foundation
import Testing
@testable import Strata

@Suite("SortKey")
struct PredicateSortKeyTests {
    private func person(_ id: Int, _ last: Value, _ first: String, age: Value = .null, city: String? = nil) -> DictionarySubject {
        let department = city.map { DictionarySubject("Department", ["city": .value(.string($0))]) }
        return DictionarySubject("Person", [
            "id": .value(.int(Int64(id))),
            "last": .value(last),
            "first": .value(.string(first)),
            "age": .value(age),
            "department": .toOne(department),
        ])
    }

    private func ids(_ subjects: [DictionarySubject]) throws -> [Int64] {
        try subjects.map { subject in
            guard case .value(.int(let id)) = try subject.member(forKey: "id") else { return -1 }
            return id
        }
    }

    @Test("multi-key sort: the second key breaks ties of the first")
    func multiKey() throws {
        let people = [
            person(1, .string("Lee"), "Bo"), person(2, .string("Abe"), "Zed"),
            person(3, .string("Lee"), "Ann"), person(4, .string("Abe"), "Amy"),
        ]
        let sorted = try SortKey.sorted(people, by: [SortKey("last"), SortKey("first")])
        #expect(try ids(sorted) == [4, 2, 3, 1])
        let mixed = try SortKey.sorted(people, by: [.ascending("last"), .descending("first")])
        #expect(try ids(mixed) == [2, 4, 1, 3])
    }

    @Test("stable: ties keep their original order, in both directions")
    func stability() throws {
        let people = (0..<50).map { person($0, .string($0 % 3 == 0 ? "A" : "B"), "x") }
        let ascending = try SortKey.sorted(people, by: [SortKey("last")])
        #expect(try ids(ascending) == (0..<50).filter { $0 % 3 == 0 }.map(Int64.init) + (0..<50).filter { $0 % 3 != 0 }.map(Int64.init))
        let descending = try SortKey.sorted(people, by: [SortKey("last", ascending: false)])
        #expect(try ids(descending) == (0..<50).filter { $0 % 3 != 0 }.map(Int64.init) + (0..<50).filter { $0 % 3 == 0 }.map(Int64.init))
        #expect(try ids(SortKey.sorted(people, by: [])) == (0..<50).map(Int64.init))
    }

    @Test("nil sorts first ascending, last descending; numbers compare across cases")
    func nilAndNumbers() throws {
        let people = [
            person(1, .null, "a", age: .double(30.5)), person(2, .null, "a", age: .null),
            person(3, .null, "a", age: .int(30)), person(4, .null, "a", age: .decimal(31)), person(5, .null, "a", age: .int(-2)),
        ]
        #expect(try ids(SortKey.sorted(people, by: [SortKey("age")])) == [2, 5, 3, 1, 4])
        #expect(try ids(SortKey.sorted(people, by: [SortKey("age", ascending: false)])) == [4, 1, 3, 5, 2])
    }

    @Test("case-insensitive string sort and key paths through to-one")
    func optionsAndKeyPaths() throws {
        let people = [
            person(1, .string("b"), "x", city: "Oslo"), person(2, .string("B"), "x", city: "Bern"),
            person(3, .string("a"), "x"), person(4, .string("C"), "x", city: "Århus"),
        ]
        #expect(try ids(SortKey.sorted(people, by: [SortKey("last")])) == [2, 4, 3, 1])
        #expect(try ids(SortKey.sorted(people, by: [SortKey("last", options: .caseInsensitive)])) == [3, 1, 2, 4])
        #expect(try ids(SortKey.sorted(people, by: [SortKey("department.city")])) == [3, 2, 1, 4])
    }

    @Test("compare two subjects by a list of keys")
    func compareSubjects() throws {
        let ann = person(1, .string("Lee"), "Ann")
        let bo = person(2, .string("Lee"), "Bo")
        #expect(try SortKey.compare(ann, bo, by: [SortKey("last")]) == .orderedSame)
        #expect(try SortKey.compare(ann, bo, by: [SortKey("last"), SortKey("first")]) == .orderedAscending)
        #expect(try SortKey.compare(ann, bo, by: [SortKey("last"), SortKey("first").reversed]) == .orderedDescending)
    }

    @Test("the total order ranks kinds: nil, numbers, strings, dates")
    func totalOrder() {
        let values: [Value] = [.date(Date(timeIntervalSince1970: 0)), .string("a"), .int(5), .null, .bool(true), .double(.nan)]
        let sorted = values.sorted { SortKey.totalOrder($0, $1) == .orderedAscending }
        #expect(sorted.map(\.isNull) == [true, false, false, false, false, false])
        #expect(SortKey.totalOrder(.bool(true), .int(5)) == .orderedAscending)
        #expect(SortKey.totalOrder(.double(.nan), .int(-100)) == .orderedAscending)
        #expect(SortKey.totalOrder(.int(5), .string("a")) == .orderedAscending)
        #expect(SortKey.totalOrder(.string("z"), .date(Date())) == .orderedAscending)
        #expect(SortKey.totalOrder(.null, .null) == .orderedSame)
    }

    @Test("sorting by a to-many key path or a relationship is an error")
    func errors() {
        #expect { try SortKey("employees.age").value(of: PredicateFixtures.team) } throws: {
            ($0 as? StrataError)?.code == .typeMismatch
        }
        #expect { try SortKey("department").value(of: PredicateFixtures.ann) } throws: {
            ($0 as? StrataError)?.code == .typeMismatch
        }
        #expect { try SortKey("agee").value(of: PredicateFixtures.ann) } throws: {
            ($0 as? StrataError)?.code == .unknownKeyPath
        }
    }
}
