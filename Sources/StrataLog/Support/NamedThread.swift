import CStrataIO
import Foundation

/// Starts a thread of Strata's own that runs `body` under `name`, where `top -H`, `perf`
/// and a debugger read it.
///
/// Why not `Thread.name`: on Linux, Foundation's setter does nothing before `start()`
/// (there is no kernel thread yet to name), so a thread named that way keeps the name
/// of the thread that created it. The thread names itself instead. The kernel keeps 15
/// bytes; a longer name is cut there rather than refused.
package func startThread(named name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        var bytes = name.utf8.prefix(15).map { CChar(bitPattern: $0) }
        bytes.append(0)
        strata_name_thread(bytes)
        body()
    }
    if let stackSize { thread.stackSize = stackSize }
    thread.start()
}
