import Courier
import Foundation

extension CourierClient {
    /// The events `request` streams back (Server-Sent Events), as an asynchronous sequence.
    ///
    /// ```swift
    /// var request = CourierRequest<Void>(path: "/v1/notifications")
    /// request.connection.readTimeout = .unlimited   // when the server sends no heartbeats
    /// for try await event in client.events(request) where event.type == "order" {
    ///     let order = try event.decode(Order.self)
    /// }
    /// ```
    ///
    /// Each connection goes the way of ``CourierClient/stream(_:body:)-(CourierRequest<Value>,_)``:
    /// interceptors, credentials, cookies, redirects, the retry policy (until the response
    /// arrives), limits, observers and spans. The request asks for `text/event-stream` and
    /// `Cache-Control: no-cache` unless it sets its own `Accept` and `Cache-Control`, and it
    /// bypasses the client's HTTP cache. A `Last-Event-ID` field of its own is the id the
    /// stream starts after, as after a reconnection, so a program can carry on where an
    /// earlier run stopped.
    ///
    /// The client's read timeout applies between the pieces of the stream: a stream silent for
    /// longer is dropped and connected again. A whole-call timeout applies to each connection.
    ///
    /// - Parameters:
    ///   - request: the request; its response type is not used.
    ///   - reconnection: when to connect again after a connection ends; by default
    ///     ``EventStream/Reconnection/automatic`` for GET and ``EventStream/Reconnection/never``
    ///     for other methods, which a reconnection would send again.
    ///   - maximumEventSize: the most bytes of one event (or one line) held while it arrives;
    ///     1 MiB by default.
    /// - Returns: the stream; nothing is sent until it is iterated.
    public func events<Value>(
        _ request: CourierRequest<Value>,
        reconnection: EventStream.Reconnection? = nil,
        maximumEventSize: Int = 1 << 20
    ) -> EventStream {
        var request = request
        if request.headers["Accept"] == nil { request.headers.set(name: "Accept", value: "text/event-stream") }
        if request.headers["Cache-Control"] == nil { request.headers.set(name: "Cache-Control", value: "no-cache") }
        request.cachePolicy = .noStore
        let initialLastEventID = request.headers["Last-Event-ID"] ?? ""
        let source = EventSource(
            connect: { [request] lastEventID, reader in
                var attempt = request
                attempt.headers.remove(name: "Last-Event-ID")
                if !lastEventID.isEmpty { attempt.headers.set(name: "Last-Event-ID", value: lastEventID) }
                return try await self.stream(attempt, body: reader)
            },
            reconnection: reconnection ?? (request.method == .get ? .automatic : .never),
            maximumEventSize: maximumEventSize,
            initialLastEventID: initialLastEventID,
            clock: configuration.clock
        )
        return EventStream(source: source)
    }
}
