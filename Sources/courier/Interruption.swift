import Dispatch
import Foundation

/// Turns Ctrl-C (SIGINT) into the cancellation of a task, so that a download stops cleanly and
/// keeps its partial file instead of the process dying in the middle of a write.
enum Interruption {
    /// Runs `body` while SIGINT cancels `task`; the previous disposition is restored afterwards.
    static func cancelling<Result>(
        _ task: Task<some Sendable, any Error>, _ body: () async throws -> Result
    ) async throws -> Result {
        let previous = signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { task.cancel() }
        source.resume()
        defer {
            source.cancel()
            signal(SIGINT, previous)
        }
        return try await body()
    }
}
