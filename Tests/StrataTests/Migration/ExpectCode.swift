import Testing
import StrataLog

/// Expects `body` to throw a `StrataError` with `code`; returns the error.
@discardableResult
func expectCode(_ code: StrataError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> StrataError? {
    do {
        try body()
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as StrataError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
