/// The one error type of Strata: a code, a message a person can act on, and the
/// context that locates the problem (a file and offset, an entity and key path,
/// the objects that failed validation, the two model hashes that differ).
///
/// Match on the code the way you would match on a case:
///
/// ```swift
/// do {
///     let store = try LogStore.open(at: path)
/// } catch .storeLocked {
///     print("another process is writing this store")
/// }
/// ```
///
/// (`catch StrataError.Code.storeLocked` is the same pattern, spelled out.)
///
/// Programmer misuse that no file or caller data can cause may trap; everything a
/// file, a model or a caller's data can cause throws a `StrataError`.
public struct StrataError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Codes are stable: tests and callers match on them.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence that says what went wrong and, where it helps, what to do.
    public var message: String
    /// The file the failure concerns, when there is one.
    public var path: String?
    /// The byte offset in `path` where the problem was found, when known.
    public var offset: Int64?
    /// The operating-system error number behind an I/O failure, when there is one.
    public var errno: Int32?
    /// Further facts by name: `entity`, `keyPath`, `storeHash`, `modelHash`, `objects`…
    public var context: [String: String]

    public init(
        _ code: Code,
        _ message: String,
        path: String? = nil,
        offset: Int64? = nil,
        errno: Int32? = nil,
        context: [String: String] = [:]
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.offset = offset
        self.errno = errno
        self.context = context
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let path { text += " [file: \(path)" + (offset.map { ", offset: \($0)" } ?? "") + "]" }
        if let errno { text += " [errno \(errno)]" }
        if !context.isEmpty {
            let pairs = context.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            text += " [" + pairs.joined(separator: ", ") + "]"
        }
        return text
    }
}

/// Lets `catch .corrupt`, `catch StrataError.Code.corrupt` and `case StrataError.Code.corrupt` read naturally.
public func ~= (code: StrataError.Code, error: any Error) -> Bool {
    (error as? StrataError)?.code == code
}

extension StrataError.Code {
    // Storage engine
    /// A file's bytes do not match their checksum or do not parse.
    public static let corrupt = Self(rawValue: "corrupt")
    /// The operating system reported an I/O failure (EIO, ENOSPC…).
    public static let io = Self(rawValue: "io")
    /// Another process holds the store's write lock.
    public static let storeLocked = Self(rawValue: "storeLocked")
    /// The store is read-only: opened so, or a failed fsync made it so until reopened.
    public static let readOnly = Self(rawValue: "readOnly")
    /// The store or a file it names does not exist.
    public static let notFound = Self(rawValue: "notFound")
    /// The store was written by a format version this release cannot read.
    public static let unsupportedFormat = Self(rawValue: "unsupportedFormat")
    /// A caller passed a value the operation cannot accept.
    public static let invalidArgument = Self(rawValue: "invalidArgument")
    /// The store was closed.
    public static let closed = Self(rawValue: "closed")

    // Object layer
    /// The model used to open the store is incompatible with the one used to create it.
    public static let incompatibleModel = Self(rawValue: "incompatibleModel")
    /// A model definition is inconsistent (unknown destination, mismatched inverse…).
    public static let invalidModel = Self(rawValue: "invalidModel")
    /// A key path does not name a property of the entity.
    public static let unknownKeyPath = Self(rawValue: "unknownKeyPath")
    /// A value has the wrong type for its property.
    public static let typeMismatch = Self(rawValue: "typeMismatch")
    /// A predicate format string does not parse.
    public static let predicateSyntax = Self(rawValue: "predicateSyntax")
    /// Objects failed validation at save; nothing was written.
    public static let validationFailed = Self(rawValue: "validationFailed")
    /// Objects changed in the store since the context read them.
    public static let conflict = Self(rawValue: "conflict")
    /// A deny delete rule refused a delete.
    public static let deleteDenied = Self(rawValue: "deleteDenied")
    /// An object id does not exist in the store.
    public static let objectNotFound = Self(rawValue: "objectNotFound")
    /// A migration failed for a reason no more specific code names; the store is as it was.
    public static let migrationFailed = Self(rawValue: "migrationFailed")
    /// Lightweight migration cannot infer a change (context: `entity`, `property`, `reason`).
    public static let migrationInferenceRefused = Self(rawValue: "migrationInferenceRefused")
    /// No migration path leads from the store's model to the one given (context: the
    /// store's version identifier and hash, the target's).
    public static let noMigrationPath = Self(rawValue: "noMigrationPath")
    /// Objects failed validation while a migration wrote them (context: `entity`,
    /// `property`, `object`); the store is as it was.
    public static let migrationValidationFailed = Self(rawValue: "migrationValidationFailed")
    /// Two objects would share a value a uniqueness constraint forbids (context: `entity`,
    /// `properties`, `value`, `objects`).
    public static let uniquenessViolation = Self(rawValue: "uniquenessViolation")
    /// A migration policy or stage hook threw (context: `stage` or `entity`, `hook`); the
    /// error it threw is in the message; the store is as it was.
    public static let migrationHookFailed = Self(rawValue: "migrationHookFailed")

    // Resource limits
    /// An input exceeds a limit Strata sets to stay within bounded memory and stack
    /// (nesting depth, line length, entity count…); context names the limit.
    public static let limitExceeded = Self(rawValue: "limitExceeded")
    /// A typed predicate or sort (Foundation's `#Predicate`, `SortDescriptor`) holds a
    /// part the store cannot run; the message names the part.
    public static let untranslatablePredicate = Self(rawValue: "untranslatablePredicate")

    // History
    /// A history token is older than the retained history (`deleteHistory` or the
    /// retention option removed what followed it), history is not tracked, or the store
    /// holds another transaction at the token's sequence (restored from an older copy
    /// and written since): what changed after it can no longer be told. Read the store
    /// afresh and take a new token.
    public static let historyTokenExpired = Self(rawValue: "historyTokenExpired")
}
