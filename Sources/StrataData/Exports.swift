// StrataData is the typed face of Strata: a model written as SwiftData writes one
// ports with `import StrataData` in place of `import SwiftData`. Foundation comes
// along because `#Predicate`, `SortDescriptor`, `Data` and `Date` are Foundation's.
@_exported import Foundation
@_exported import Strata
