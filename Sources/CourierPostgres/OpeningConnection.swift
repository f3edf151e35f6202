import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// The connection a store opens to prepare the tables, and who closes it.
///
/// Opening runs in a task that its caller stops waiting for at the deadline. The caller then
/// abandons it: the connection, if one was made, is closed at once, which ends a statement
/// still waiting (for another worker's migration lock, or for a server that went silent), and a
/// connection made after that is closed as soon as it is kept. Either side may close; the
/// connection is closed once.
package final class OpeningConnection: Sendable {
    private struct State {
        var connection: PostgresConnection?
        var isAbandoned = false
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Keeps `connection` for a later close; returns `false`, having closed it, when opening
    /// was abandoned already.
    package func keep(_ connection: PostgresConnection) -> Bool {
        let abandoned = state.withLockedValue { state in
            if !state.isAbandoned { state.connection = connection }
            return state.isAbandoned
        }
        if abandoned { OpeningConnection.closeWithoutWaiting(connection) }
        return !abandoned
    }

    /// Closes the kept connection and waits until it is closed.
    package func close() async {
        guard let connection = take() else { return }
        let closed: EventLoopFuture<Void> = connection.close()
        try? await closed.get()
    }

    /// Gives opening up: closes the kept connection without waiting, and any connection kept
    /// from now on.
    package func abandon() {
        let connection = state.withLockedValue { state in
            state.isAbandoned = true
            defer { state.connection = nil }
            return state.connection
        }
        if let connection { OpeningConnection.closeWithoutWaiting(connection) }
    }

    private static func closeWithoutWaiting(_ connection: PostgresConnection) {
        let _: EventLoopFuture<Void> = connection.close()
    }

    private func take() -> PostgresConnection? {
        state.withLockedValue { state in
            defer { state.connection = nil }
            return state.connection
        }
    }
}
