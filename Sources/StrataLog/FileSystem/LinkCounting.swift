/// A file that can tell how many names reach it (`st_nlink`), as the engine's own file
/// types can. The reclaimer cuts only a file no name reaches any longer, never one a
/// backup hard-linked (the link shares the bytes); a file of another file system's
/// type, which cannot tell, is closed whole instead.
package protocol LinkCounting {
    /// The number of names the file has; 0 once the last was removed while the file
    /// is open. Nil when it cannot be read.
    func linkCount() -> Int?
}
