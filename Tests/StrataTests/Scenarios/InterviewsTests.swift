import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Scenario 4: interviews — relationships, inverses, the four delete rules, counts,
/// a transient attribute and a misspelt key path, as a Core Data user would expect.
@Suite struct InterviewsTests {
    static func model() throws -> ObjectModel { try ObjectModel(contentsOf: FixturePaths.model("Interviews.json")) }

    static func store() throws -> ObjectStore { try StoreUnderTest.inMemory(model: try model()) }

    /// A subject with its questions (a subject needs at least one to be saved).
    @discardableResult
    static func subject(_ context: ObjectContext, name: String, age: Int = 30, questions: [String] = ["Why?"]) throws -> ManagedObject {
        let subject = try context.insert("Subject")
        try subject.setValue(name, forKey: "name")
        try subject.setValue(age, forKey: "age")
        for (position, text) in questions.enumerated() {
            let question = try context.insert("Question")
            try question.setValue(text, forKey: "text")
            try question.setValue(position, forKey: "position")
            try question.setObject(subject, forKey: "subject")
        }
        return subject
    }

    static func record(_ context: ObjectContext, answer: String) throws -> ManagedObject {
        let record = try context.insert("Record")
        try record.setValue(answer, forKey: "answer")
        try record.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "recordedAt")
        return record
    }

    static func interviewer(_ context: ObjectContext, name: String, age: Int = 40) throws -> ManagedObject {
        let interviewer = try context.insert("Interviewer")
        try interviewer.setValue(name, forKey: "name")
        try interviewer.setValue(age, forKey: "age")
        return interviewer
    }

    static func count(_ context: ObjectContext, _ entity: String) throws -> Int {
        try context.count(for: FetchRequest(entityName: entity))
    }

    // MARK: Subject 1:n Question

    @Test func aSubjectMustHaveAtLeastOneQuestion() throws {
        let store = try Self.store()
        let context = store.newContext()
        let lonely = try Self.subject(context, name: "Lonely", questions: [])
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .validationFailed)
        let report = error?.context["objects"] ?? ""
        #expect(report.contains(lonely.objectID.description) && report.contains(".questions") && report.contains("minimumCount"))
        #expect(try Self.count(store.newContext(), "Subject") == 0)

        let question = try context.insert("Question")
        try question.setValue("First?", forKey: "text")
        try lonely.add(question, to: "questions")
        try context.save()
        #expect(try question.object("subject") == lonely)
        #expect(try Self.count(store.newContext(), "Subject") == 1)
    }

    @Test func removingTheLastQuestionIsCaughtAtSave() throws {
        let store = try Self.store()
        let setup = store.newContext()
        let subject = try Self.subject(setup, name: "Ada", questions: ["Only one?"])
        try setup.save()

        // Deleting the question changes the subject's derived to-many: the subject is
        // not rewritten, but its minimum count is still checked.
        let context = store.newContext()
        let ada = try context.object(with: subject.objectID)
        let question = try #require(try ada.objects("questions").first)
        try context.delete(question)
        #expect(try ada.count("questions") == 0)
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .validationFailed)
        #expect(error?.context["objects"]?.contains("\(subject.objectID).questions: minimumCount") == true)
        #expect(try Self.count(store.newContext(), "Question") == 1)

        // Moving a subject's only question to another subject is caught the same way.
        context.rollback()
        let other = try Self.subject(context, name: "Grace", questions: [])
        try question.setObject(other, forKey: "subject")
        let moved = #expect(throws: StrataError.self) { try context.save() }
        #expect(moved?.context["objects"]?.contains("\(subject.objectID).questions: minimumCount") == true)
    }

    @Test func deletingASubjectCascadesToQuestionsAndTheirRecords() throws {
        let dir = try TemporaryDirectory("interviews-cascade")
        defer { dir.remove() }
        do {
            let store = try StoreUnderTest.open(at: dir.path, model: try Self.model())
            let context = store.newContext()
            let ada = try Self.subject(context, name: "Ada", questions: ["One?", "Two?", "Three?"])
            try Self.subject(context, name: "Grace", questions: ["Four?"])
            for question in try ada.objects("questions") {
                try Self.record(context, answer: "yes").setObject(question, forKey: "question")
            }
            try context.save()
            #expect(try Self.count(context, "Record") == 3)

            try context.delete(ada)
            #expect(context.deletedObjects.count == 7) // the subject, 3 questions, 3 records
            #expect(try Self.count(context, "Question") == 1) // pending deletes count in fetches
            try context.save()
            try store.close()
        }
        let store = try StoreUnderTest.open(at: dir.path, model: try Self.model())
        defer { try? store.close() }
        let context = store.newContext()
        #expect(try Self.count(context, "Subject") == 1)
        #expect(try Self.count(context, "Question") == 1)
        #expect(try Self.count(context, "Record") == 0)
    }

    // MARK: Question 1:1 Record

    @Test func settingRecordQuestionSetsQuestionRecord() throws {
        let dir = try TemporaryDirectory("interviews-inverse")
        defer { dir.remove() }
        var ids: [ObjectID] = []
        do {
            let store = try StoreUnderTest.open(at: dir.path, model: try Self.model())
            let context = store.newContext()
            let subject = try Self.subject(context, name: "Ada", questions: ["One?", "Two?"])
            let questions = try subject.objects("questions")
            let (q1, q2) = (questions[0], questions[1])
            let r1 = try Self.record(context, answer: "first")
            let r2 = try Self.record(context, answer: "second")

            try r1.setObject(q1, forKey: "question")
            #expect(try q1.object("record") == r1)

            // A 1:1 moves: the old partners on both sides are unlinked.
            try r2.setObject(q1, forKey: "question")
            #expect(try q1.object("record") == r2)
            #expect(try r1.object("question") == nil)

            // And from the other side.
            try q2.setObject(r2, forKey: "record")
            #expect(try r2.object("question") == q2)
            #expect(try q1.object("record") == nil)
            try q1.setObject(r1, forKey: "record")
            #expect(try r1.object("question") == q1)
            try context.save()
            ids = [q1.objectID, q2.objectID, r1.objectID, r2.objectID]
            try store.close()
        }
        let store = try StoreUnderTest.open(at: dir.path, model: try Self.model())
        defer { try? store.close() }
        let context = store.newContext()
        let (q1, q2, r1, r2) = try (context.object(with: ids[0]), context.object(with: ids[1]), context.object(with: ids[2]), context.object(with: ids[3]))
        #expect(try q1.object("record") == r1 && r1.object("question") == q1)
        #expect(try q2.object("record") == r2 && r2.object("question") == q2)
    }

    @Test func deletingAQuestionCascadesToItsRecordAndDeletingARecordNullifiesTheQuestion() throws {
        let store = try Self.store()
        let context = store.newContext()
        let subject = try Self.subject(context, name: "Ada", questions: ["One?", "Two?"])
        let questions = try subject.objects("questions")
        let r1 = try Self.record(context, answer: "one")
        let r2 = try Self.record(context, answer: "two")
        try r1.setObject(questions[0], forKey: "question")
        try r2.setObject(questions[1], forKey: "question")
        try context.save()

        try context.delete(questions[0]) // Question.record: cascade
        #expect(r1.isDeleted)
        try context.delete(r2) // Record.question: nullify (the default)
        #expect(!questions[1].isDeleted)
        #expect(try questions[1].object("record") == nil)
        try context.save()

        let fresh = store.newContext()
        #expect(try Self.count(fresh, "Record") == 0)
        let survivor = try fresh.object(with: questions[1].objectID)
        #expect(try survivor.object("record") == nil)
        #expect(try fresh.object(with: subject.objectID).count("questions") == 1)
    }

    // MARK: Deny and no action

    @Test func denyRefusesWhileSubjectsRemainAndNamesThem() throws {
        let store = try Self.store()
        let context = store.newContext()
        let boss = try Self.interviewer(context, name: "Boss")
        let ada = try Self.subject(context, name: "Ada")
        let grace = try Self.subject(context, name: "Grace")
        try ada.setObject(boss, forKey: "interviewer")
        try boss.add(grace, to: "subjects")
        try context.save()

        let error = #expect(throws: StrataError.self) { try context.delete(boss) }
        #expect(error?.code == .deleteDenied)
        #expect(error?.context["keyPath"] == "subjects")
        let blocking = Set((error?.context["objects"] ?? "").split(separator: ",").map(String.init))
        #expect(blocking == [ada.objectID.description, grace.objectID.description])
        #expect(!boss.isDeleted && !context.hasChanges) // a refused delete changes nothing

        // Once the subjects are gone (nullify on Subject.interviewer), the delete works.
        try context.delete(ada)
        #expect(throws: StrataError.self) { try context.delete(boss) }
        try context.delete(grace)
        try context.delete(boss)
        try context.save()
        #expect(try Self.count(store.newContext(), "Person") == 0)
    }

    @Test func noActionTouchesNoObjectButTheEdgeGoesWithTheDeleted() throws {
        let store = try Self.store()
        let context = store.newContext()
        let subject = try Self.subject(context, name: "Ada", questions: ["One?", "Two?"])
        let tag = try context.insert("Tag")
        try tag.setValue("hard", forKey: "label")
        let questions = try subject.objects("questions")
        for question in questions { try question.add(tag, to: "tags") }
        try context.save()
        #expect(try tag.count("questions") == 2)

        // Question.tags is "no action": the tag object is not touched. The membership
        // is an edge record, and a deleted object's edges go with it, so the tag lists
        // no deleted question (with lists it kept a dangling id).
        let doomed = questions[0]
        try context.delete(doomed)
        #expect(!tag.hasChanges)
        try context.save()

        let fresh = store.newContext()
        let sameTag = try fresh.object(with: tag.objectID)
        let listed = try sameTag.objects("questions")
        #expect(listed.map(\.objectID) == [questions[1].objectID])
        #expect(try sameTag.count("questions") == 1)
        for question in listed { _ = try question.string("text") }
    }

    // MARK: Counts, transient, fetching

    @Test func maximumCountIsCheckedAtSave() throws {
        // The fixture has no maximum: a model of the same shape with one.
        let model = try ObjectModel(version: "1") {
            Entity("Subject") {
                Attribute("name", .string)
                Relationship("questions", to: "Question", inverse: "subject", toMany: true, deleteRule: .cascade)
                    .count(min: 1, max: 2)
            }
            Entity("Question") {
                Attribute("text", .string)
                Relationship("subject", to: "Subject", inverse: "questions", optional: false)
            }
        }
        let store = try StoreUnderTest.inMemory(model: model)
        let context = store.newContext()
        let subject = try context.insert("Subject")
        try subject.setValue("Ada", forKey: "name")
        for text in ["a", "b", "c"] {
            let question = try context.insert("Question")
            try question.setValue(text, forKey: "text")
            try question.setObject(subject, forKey: "subject")
        }
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.context["objects"]?.contains("\(subject.objectID).questions: maximumCount") == true)
        try context.delete(try #require(try subject.objects("questions").last))
        try context.save()
        let fresh = store.newContext()
        #expect(try fresh.object(with: subject.objectID).count("questions") == 2)
    }

    @Test func aTransientAttributeIsNeverWritten() throws {
        let dir = try TemporaryDirectory("interviews-transient")
        defer { dir.remove() }
        let id: ObjectID
        do {
            let store = try StoreUnderTest.open(at: dir.path, model: try Self.model())
            let context = store.newContext()
            let ada = try Self.subject(context, name: "Ada")
            try ada.setValue("Countess Lovelace", forKey: "displayName")
            #expect(try ada.string("displayName") == "Countess Lovelace")
            try context.save()
            #expect(try ada.string("displayName") == "Countess Lovelace") // kept in memory
            id = ada.objectID
            try store.close()
        }
        let store = try StoreUnderTest.open(at: dir.path, model: try Self.model())
        defer { try? store.close() }
        let context = store.newContext()
        let ada = try context.object(with: id)
        #expect(try ada.string("name") == "Ada")
        #expect(try ada.string("displayName") == nil)
    }

    @Test func fetchingByAgeWorksAndAMisspeltKeyPathIsAnError() throws {
        let store = try Self.store()
        let context = store.newContext()
        try Self.subject(context, name: "Ada", age: 25)
        try Self.subject(context, name: "Grace", age: 26)
        _ = try Self.interviewer(context, name: "Boss", age: 25)
        try context.save()

        let fresh = store.newContext()
        var request = FetchRequest(entityName: "Subject", predicate: try Predicate(format: "age == 25"))
        #expect(try fresh.fetch(request).map { try $0.string("name") } == ["Ada"])
        request.entityName = "Person" // the abstract parent: both sub-entities
        #expect(Set(try fresh.fetch(request).map { try $0.string("name") }) == ["Ada", "Boss"])

        let misspelt = FetchRequest(entityName: "Subject", predicate: try Predicate(format: "agee == 25"))
        let error = #expect(throws: StrataError.self) { _ = try fresh.fetch(misspelt) }
        #expect(error?.code == .unknownKeyPath)
        #expect(error?.context["entity"] == "Subject")
        #expect(error?.context["keyPath"] == "agee")
        #expect(error?.message.contains("Subject") == true && error?.message.contains("agee") == true)
        #expect(throws: StrataError.self) { _ = try fresh.count(for: misspelt) }
    }
}
