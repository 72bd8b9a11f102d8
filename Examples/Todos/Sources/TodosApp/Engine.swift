/// The store behind the routes.
public enum Engine: String, CaseIterable, Sendable {
    /// A Strata store: the directory `Todos.strata` in the data directory.
    case strata
    /// SQLite through GRDB: the file `Todos.sqlite` in the data directory.
    case sqlite
}
