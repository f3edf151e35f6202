import Foundation

extension Client {
    /// Sends `request`, following redirects with the same credential and cookie rules as ``load(_:)``,
    /// and hands the final response, its body still to be read, to `body`.
    ///
    /// The scheduler slot of the final hop is held until `body` returns, so a download counts
    /// against the client's limits for as long as it runs. Interceptors do not run: they see
    /// collected responses.
    func streamExchange<Result: Sendable>(
        _ request: HTTPRequest,
        body: (StreamedResponse) async throws -> Result
    ) async throws -> Result {
        let deadline = request.timeout.map { ContinuousClock.now + $0 }
        var redirects = RedirectStateMachine(policy: configuration.redirectPolicy, request: request)
        var current = request
        while true {
            var outgoing = current
            prepareHop(&outgoing)
            let origin = try await admit(outgoing)
            let sent = ContinuousClock.now
            let outcome: (result: Result?, next: HTTPRequest?, status: Int)
            do {
                outcome = try await transport.stream(outgoing, deadline: deadline) { streamed -> (Result?, HTTPRequest?, Int) in
                    finishHop(outgoing, status: streamed.head.status, reasonPhrase: streamed.head.reasonPhrase, headers: streamed.head.headers)
                    switch try redirects.next(status: streamed.head.status, location: streamed.head.headers["Location"], request: current) {
                    case .deliver:
                        var streamed = streamed
                        streamed.head.redirects = redirects.hops
                        return (try await body(streamed), nil, streamed.head.status)
                    case .follow(let next):
                        return (nil, next, streamed.head.status)
                    }
                }
            } catch {
                scheduler.release(host: origin, sample: .init(latency: .now - sent, outcome: .init(failure: error)))
                throw error
            }
            scheduler.release(host: origin, sample: .init(latency: .now - sent, outcome: .response(status: outcome.status)))
            if let result = outcome.result { return result }
            current = outcome.next!
        }
    }
}
