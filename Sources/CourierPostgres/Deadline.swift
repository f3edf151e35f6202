import Courier
import NIOCore
import NIOPosix
import PostgresNIO

/// What `work` returns, or a ``StatementTimeout`` once `deadline` has passed, or a
/// cancellation error once the caller is cancelled: whichever comes first. The work is
/// cancelled then, but not waited for, so that a statement stuck on a connection the server
/// dropped without a word never holds its caller.
package func outcome<Value: Sendable>(
    within deadline: Duration, _ work: @escaping @Sendable () async throws -> Value
) async -> Result<Value, any Error> {
    let first = FirstOutcome<Value>()
    let task = Task {
        do { first.settle(with: .success(try await work())) } catch { first.settle(with: .failure(error)) }
    }
    // A timer on an event loop rather than a sleeping task: one task less for every statement.
    let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: .nanoseconds(deadline.nanoseconds)) {
        first.settle(with: .failure(StatementTimeout(deadline: deadline)))
    }
    let outcome = await withTaskCancellationHandler {
        await first.value
    } onCancel: {
        first.settle(with: .failure(CancellationError()))
    }
    task.cancel()
    timer.cancel()
    return outcome
}

/// Closes `connection` and waits until it is: PostgresNIO asserts that a connection is closed
/// before it is released.
package func closeAndWait(_ connection: PostgresConnection) async {
    let closed: EventLoopFuture<Void> = connection.close()
    try? await closed.get()
}
