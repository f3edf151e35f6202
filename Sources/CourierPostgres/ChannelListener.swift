import Foundation
import Logging
import PostgresNIO

/// One connection that listens on a channel, made again after a pause whenever it is lost,
/// until the listener is freed or stopped.
///
/// `listening` is called each time the connection starts listening (what was notified while
/// nobody listened is unknown then), `heard` with each notification's payload, and `lost` each
/// time the connection ends.
package final class ChannelListener: Sendable {
    private let task: Task<Void, Never>

    package init(
        location: PostgresLocation, channel: String, logger: Logger, listening: @escaping @Sendable () -> Void,
        heard: @escaping @Sendable (String) -> Void, lost: @escaping @Sendable () -> Void
    ) {
        task = Task {
            var failures = 0
            while !Task.isCancelled {
                do {
                    let connection = try await PostgresConnection.connect(
                        configuration: try location.connectionConfiguration(), id: 1, logger: logger
                    )
                    do {
                        try await connection.listen(on: channel) { notifications in
                            failures = 0
                            listening()
                            for try await notification in notifications { heard(notification.payload) }
                        }
                    } catch {
                        lost()
                        await closeAndWait(connection)
                        throw error
                    }
                    lost()
                    await closeAndWait(connection)
                } catch {
                    lost()
                    if Task.isCancelled { return }
                    failures += 1
                    logger.debug("listening on \(channel) failed", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: SharedDatabase.pause(after: failures))
            }
        }
    }

    deinit {
        task.cancel()
    }

    /// Stops listening.
    package func stop() {
        task.cancel()
    }
}
