import Courier
import CourierQueue
import Foundation

extension FetchCommand {
    /// `fetch --durable`: enqueue, make the first attempt if the request's turn has come, and
    /// print the response (then `-w`'s text) or `queued ID`.
    func runDurable(_ plan: FetchPlan.Made, started: ContinuousClock.Instant, out: Output) async throws {
        let record = try await queue.withQueue(delivers: true, clientConfiguration: plan.configuration) { queue in
            try await queue.enqueue(plan.request, tag: tag, isOrdered: !unordered).firstAttempt()
        }
        guard record.state == .delivered || record.state == .failed, let outcome = record.outcome else {
            out.line("queued \(record.id)")
            return
        }
        guard let response = outcome.response(url: record.request.url) else {
            throw CommandFailure(.queue, "the durable request \(record.id) failed for good: \(outcome.failure ?? "no response")")
        }
        try show(response, destination: plan.destination, to: out)
        printWriteOut(plan, for: response, started: started, to: out)
        try checkStatus(of: response)
    }
}
