/// Why a model-file scalar does not fit an attribute type.
struct ModelFileValueProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
