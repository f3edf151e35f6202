import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// One request and its response on a connection of ``ChannelTransport``.
final class Exchange: Sendable {
    let connection: Connection
    var channel: any Channel { connection.channel }
    let request: CourierHTTPRequest
    let handoff = BodyHandoff()
    private let start: ContinuousClock.Instant
    private let decompression: Decompression
    private let finished: EventLoopPromise<Bool>
    private let timer = NIOLockedValueBox<(scheduled: Scheduled<Void>?, fired: Bool)>((nil, false))
    /// The read-timeout clock and the watchdog that watches it, when the exchange has a limit.
    private let watched: (watch: ReadWatchdog.Watch, watchdog: ReadWatchdog)?

    init(
        connection: Connection, request: CourierHTTPRequest, start: ContinuousClock.Instant, decompression: Decompression,
        readTimeout: Duration?, watchdogs: ReadWatchdogs
    ) {
        self.connection = connection
        self.request = request
        self.start = start
        self.decompression = decompression
        self.finished = connection.channel.eventLoop.makePromise(of: Bool.self)
        self.watched = watchdogs.makeWatch(timeout: readTimeout).map { ($0, watchdogs.on(connection.channel.eventLoop)) }
    }

    /// Writes the request and waits for the response head.
    func run(deadline: ContinuousClock.Instant?) async throws -> HTTPResponseHead {
        if let deadline {
            let channel = self.channel
            let scheduled = channel.eventLoop.scheduleTask(in: .nanoseconds((deadline - .now).nanoseconds)) { [timer] in
                timer.withLockedValue { $0.fired = true }
                channel.close(promise: nil)
            }
            timer.withLockedValue { $0.scheduled = scheduled }
        }
        if let (watch, watchdog) = watched {
            let pipeline = channel.pipeline
            watchdog.start(watch) { pipeline.fireUserInboundEventTriggered(ExchangeHandler.ReadTimedOut()) }
        }
        do {
            return try await whileCancellable {
                try await self.channel.triggerUserOutboundEvent(
                    ExchangeHandler.Start(
                        handoff: self.handoff, finished: self.finished, url: self.request.url,
                        method: self.request.method.rawValue, decompression: self.decompression, watch: self.watched?.watch
                    )
                ).get()
                do {
                    try await self.write()
                } catch let error where error is ChannelError || error is IOError {
                    // The connection ended while the request was written: what the server sent
                    // before (an early answer, or a TLS alert refusing the client certificate)
                    // says more than the failed write.
                    self.channel.close(promise: nil)
                }
                return try await self.handoff.head().0
            }
        } catch {
            throw self.cause(of: error)
        }
    }

    /// Runs `body`; cancelling the task closes the connection, which ends the exchange.
    nonisolated(nonsending) func whileCancellable<T: Sendable>(_ body: nonisolated(nonsending) () async throws -> T) async throws -> T {
        let channel = self.channel
        return try await withTaskCancellationHandler(operation: body, onCancel: { channel.close(promise: nil) })
    }

    private func write() async throws {
        let url = request.url
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? ""
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        var head = HTTPRequestHead(version: .http1_1, method: NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue), uri: target)
        for field in request.headers { head.headers.add(name: field.name, value: field.value) }
        if !head.headers.contains(name: "Host"), let host = url.host {
            head.headers.add(name: "Host", value: Exchange.authorityHost(host) + (url.port.map { ":\($0)" } ?? ""))
        }
        if let length = request.body?.length {
            head.headers.replaceOrAdd(name: "Content-Length", value: String(length))
        } else if request.body == nil, ["POST", "PUT", "PATCH"].contains(request.method.rawValue) {
            head.headers.replaceOrAdd(name: "Content-Length", value: "0")
        }
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        var trailers: HTTPHeaders?
        if let body = request.body {
            if !body.isStreamed, let data = body.bytes {
                channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: data))), promise: nil)
            } else {
                // One piece at a time: the next is read only once the last one was written.
                var pieces = body.chunks().makeAsyncIterator()
                while let piece = try await pieces.next() {
                    try await channel.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: piece))))
                }
                if !pieces.trailers.isEmpty {
                    trailers = HTTPHeaders(pieces.trailers.map { ($0.name, $0.value) })
                }
            }
        }
        try await channel.writeAndFlush(HTTPClientRequestPart.end(trailers))
        // The server's silence counts from here.
        watched?.watch.requestSent()
    }

    /// `host` as it stands in an authority (`Host`, a `CONNECT` target): an IPv6 address in
    /// brackets.
    static func authorityHost(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// The response head as a ``CourierResponse`` with no body yet.
    func response(_ head: HTTPResponseHead) -> CourierResponse {
        var timing = Timing(start: start)
        timing.firstByte = .now
        return CourierResponse(
            status: Int(head.status.code),
            reasonPhrase: head.status.reasonPhrase,
            headers: Headers(head.headers.map { ($0.name, $0.value) }),
            url: request.url,
            timing: timing,
            request: request,
            protocolVersion: CourierResponse.ProtocolVersion(head.version)
        )
    }

    /// What `error` means: a cancellation, the request's deadline, or `error` itself.
    func cause(of error: any Error) -> any Error {
        if Task.isCancelled { return CancellationError() }
        let error = connection.cause(of: error)
        if timer.withLockedValue({ $0.fired }) {
            return CourierError(
                .timeout,
                "The request did not finish within its total timeout\(request.timeout.map { " of \($0)" } ?? ""); raise CourierRequest.timeout for slow endpoints.",
                url: request.url, underlyingError: error
            )
        }
        return error
    }

    /// Ends the exchange; returns whether the connection may carry another request.
    func end() async -> Bool {
        timer.withLockedValue { $0.scheduled?.cancel() }
        if let (watch, watchdog) = watched { watchdog.end(watch) }
        if handoff.close() {
            // The response was not read to its end.
            channel.close(promise: nil)
            finished.succeed(false)
            return false
        }
        let keepAlive = (try? await finished.futureResult.get()) ?? false
        let closeRequested = request.headers["Connection"]?.lowercased().contains("close") ?? false
        return keepAlive && !closeRequested && !timer.withLockedValue { $0.fired }
    }
}
