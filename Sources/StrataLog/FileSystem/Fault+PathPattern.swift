extension Fault {
    /// Which paths a fault aims at. A string literal means "the path contains it":
    /// `matching: "segments/"`, `matching: "MANIFEST"`.
    package struct PathPattern: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        private let predicate: @Sendable (String) -> Bool
        package let description: String

        /// Matches where `predicate` returns true; `description` names it in messages.
        package init(_ description: String, _ predicate: @escaping @Sendable (String) -> Bool) {
            self.description = description
            self.predicate = predicate
        }

        package init(stringLiteral value: String) {
            self = .contains(value)
        }

        /// Every path.
        package static var any: PathPattern { PathPattern("any path") { _ in true } }

        /// Paths containing `text`.
        package static func contains(_ text: String) -> PathPattern {
            PathPattern("paths containing \"\(text)\"") { $0.contains(text) }
        }

        /// Paths ending with `suffix`, e.g. `".seg"`.
        package static func hasSuffix(_ suffix: String) -> PathPattern {
            PathPattern("paths ending in \"\(suffix)\"") { $0.hasSuffix(suffix) }
        }

        func matches(_ path: String) -> Bool { predicate(path) }
    }
}
