import CStrataIO

/// Names the calling thread where `top -H`, `perf` and a debugger read it.
///
/// Why not `Thread.name`: on Linux, Foundation names a thread only when the setter runs
/// on that thread, so a name set before `start()` never reaches the kernel and the
/// thread shows its creator's name instead. The kernel keeps 15 bytes; a longer name
/// is cut there rather than refused.
package func nameCurrentThread(_ name: String) {
    var bytes = Array(name.utf8.prefix(15).map { CChar(bitPattern: $0) })
    bytes.append(0)
    strata_name_thread(bytes)
}
