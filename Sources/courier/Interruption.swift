import Dispatch
import Foundation

/// Turns Ctrl-C (SIGINT) into the cancellation of a task, so that a command stops cleanly (a
/// download keeps its partial file, `-o` leaves no working file, the queue is closed) and
/// exits with status 130 instead of the process dying in the middle of a write.
enum Interruption {
    /// The value of `task`, awaited while SIGINT cancels it; the previous disposition is
    /// restored afterwards. After the first SIGINT the default disposition is back, so that a
    /// second one ends the process at once.
    static func value<Success: Sendable>(of task: Task<Success, Never>) async -> Success {
        let previous = signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            task.cancel()
            signal(SIGINT, SIG_DFL)
        }
        source.resume()
        defer {
            source.cancel()
            signal(SIGINT, previous)
        }
        return await task.value
    }
}
