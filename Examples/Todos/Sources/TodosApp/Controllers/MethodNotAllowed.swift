import Hummingbird

extension RouterMethods where Context == AppRequestContext {
    /// Answers every common method `path` does not take — those in `allowed` have
    /// routes of their own — with 405 and an `Allow` header, as HTTP asks of a
    /// resource that exists. Hummingbird's router alone answers 404, which tells a
    /// client that typed `PUT /todos/1` that the todo is missing.
    @discardableResult
    func routes(_ path: RouterPath, allowing allowed: [HTTPRequest.Method]) -> Self {
        // HEAD is answered wherever GET is (the router generates it); elsewhere it is
        // refused with the rest.
        let others: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete].filter { method in
            !allowed.contains(method) && !(method == .head && allowed.contains(.get))
        }
        let listed = (allowed.contains(.get) ? allowed + [.head] : allowed).map(\.rawValue).joined(separator: ", ")
        for method in others {
            on(path, method: method) { request, _ -> Response in
                throw APIError(status: .methodNotAllowed, code: "methodNotAllowed",
                               message: "\(request.method.rawValue) is not allowed here: use \(listed)",
                               headers: [.allow: listed])
            }
        }
        return self
    }
}
