import Strata

/// The object models of the object-layer workloads.
public enum BenchModels {
    /// The employees of the insert, fetch, query, open, lightweight-migration and
    /// compaction workloads: the same five values as SQLite's `employee` row. The
    /// department reference is an indexed integer attribute, as SQLite's
    /// `departmentId` column with its index (the query workload filters on it).
    public static func employees() throws -> ObjectModel {
        try ObjectModel(version: "1") {
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("email", .string)
                Attribute("salary", .int64, default: .int(0))
                Attribute("departmentID", .int64, default: .int(0), indexed: true)
            }
        }
    }

    /// `employees()` plus one attribute with a default: the lightweight migration.
    public static func employeesWithBonus() throws -> ObjectModel {
        try ObjectModel(version: "2") {
            Entity("Employee") {
                Attribute("name", .string)
                Attribute("email", .string)
                Attribute("salary", .int64, default: .int(0))
                Attribute("departmentID", .int64, default: .int(0), indexed: true)
                Attribute("bonus", .int64, default: .int(0))
            }
        }
    }

    /// The changes a migration runs in place, beside the added attribute, each from
    /// `employees()`.
    public enum InPlaceChange: String, CaseIterable, Sendable {
        case rename = "rename email → contact"
        case remove = "remove email"
        case optionality = "salary made optional"
        case relationship = "new optional to-one (Badge)"
        /// Checked and its terms built in one pass over the records (not a schema change only).
        case unique = "email made unique"
    }

    /// `employees()` after one in-place change.
    public static func employees(after change: InPlaceChange) throws -> ObjectModel {
        try ObjectModel(version: "2-\(change)") {
            if change == .relationship {
                Entity("Badge") {
                    Attribute("label", .string)
                    Relationship("holder", to: "Employee", inverse: "badge")
                }
            }
            Entity("Employee") {
                Attribute("name", .string)
                switch change {
                case .rename: Attribute("contact", .string).renamed(from: "email")
                case .remove: [PropertyDescription]()
                case .unique: Attribute("email", .string, unique: true)
                default: Attribute("email", .string)
                }
                Attribute("salary", .int64, optional: change == .optionality, default: .int(0))
                Attribute("departmentID", .int64, default: .int(0), indexed: true)
                if change == .relationship { Relationship("badge", to: "Badge", inverse: "holder") }
            }
        }
    }
}
