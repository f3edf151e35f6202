import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// One request and its response on a connection of ``ChannelTransport``.
final class Exchange: Sendable {
    let connection: Connection
    var channel: any Channel { connection.channel }
    let request: CourierHTTPRequest
    let handoff: BodyHandoff
    private let start: ClockReading
    private let decompression: Decompression
    private let timer = NIOLockedValueBox<(scheduled: Scheduled<Void>?, fired: Bool)>((nil, false))
    /// The read-timeout clock and the watchdog that watches it, when the exchange has a limit.
    private let watched: (watch: ReadWatchdog.Watch, watchdog: ReadWatchdog)?
    /// The request body as it goes out beside the response.
    private let sending = NIOLockedValueBox(Sending())
    /// Whether a multipart body's files go as file regions (see ``FileRegionBody``).
    private let sendsFileRegions: Bool

    /// A request body written while its response arrives (full duplex): a piece is written as
    /// soon as the body gives it, whether or not the response has begun.
    private struct Sending {
        /// The task writing a streamed body; cancelled when the connection closes.
        var task: Task<Void, Never>?
        /// Whether the end of the request went out.
        var isSent = false
        /// What the body failed with (not the connection), which explains the exchange's end.
        var failure: (any Error)?
        /// The response's status, once its head arrived.
        var status: UInt = 0
    }

    init(
        connection: Connection, request: CourierHTTPRequest, start: ClockReading, decompression: Decompression,
        readTimeout: Duration?, watchdogs: ReadWatchdogs, sendsFileRegions: Bool = false
    ) {
        self.connection = connection
        self.sendsFileRegions = sendsFileRegions
        self.request = request
        self.start = start
        self.decompression = decompression
        // A response the client reads whole wakes it once (an upgrade's never has a body).
        // A streamed body wakes its reader once per burst of reads (its handler tells the end
        // of each).
        self.handoff = BodyHandoff(collects: request.collectsResponseBody && request.upgrade == nil, wakesPerBurst: true)
        self.watched = watchdogs.makeWatch(timeout: readTimeout).map { ($0, watchdogs.on(connection.channel.eventLoop)) }
    }

    /// Writes the request and waits for the response head, and when it arrived; for a
    /// response read whole, until the response ended (see ``BodyHandoff``).
    func run(deadline: ContinuousClock.Instant?) async throws -> (HTTPResponseHead, ClockReading) {
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
                self.register()
                self.write()
                let arrival = try await self.handoff.head()
                self.sending.withLockedValue { $0.status = arrival.0.status.code }
                return arrival
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

    /// Tells the connection's ``ExchangeHandler`` where the response goes, on its loop, ahead of
    /// the request's parts (the loop runs what it is handed in order). Not waited for: when the
    /// handler cannot take it (the connection closed), the handoff fails instead.
    private func register() {
        let channel = self.channel
        let handoff = self.handoff
        let start = ExchangeHandler.Start(
            handoff: handoff, url: request.url, method: request.method.rawValue, decompression: decompression, watch: watched?.watch
        )
        @Sendable func send() {
            let taken = channel.eventLoop.makePromise(of: Void.self)
            taken.futureResult.whenFailure { handoff.end(.failure($0)) }
            channel.triggerUserOutboundEvent(start, promise: taken)
        }
        if channel.eventLoop.inEventLoop {
            send()
        } else {
            channel.eventLoop.execute(send)
        }
    }

    /// Writes the request: the head at once, and the body beside the response, so that a
    /// server may answer before it has read the body, and a body may wait for the response.
    private func write() {
        channel.write(HTTPClientRequestPart.head(makeHead()), promise: nil)
        guard let body = request.body, body.isStreamed || body.bytes == nil else {
            if let data = request.body?.bytes {
                channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: data))), promise: nil)
            }
            writeEnd()
            return
        }
        channel.flush()
        let channel = self.channel
        let regions = sendsFileRegions ? body.multipartSegments : nil
        let task = Task {
            do {
                let trailers: HTTPHeaders?
                if let regions {
                    // The files go from the kernel; the last piece goes out with the end.
                    let parts = FileRegionBody(segments: regions, reporter: body.progressReporter, length: body.length)
                    if let last = try await parts.write(to: ChannelRegionWriter(channel: channel), on: channel.eventLoop) {
                        channel.write(HTTPClientRequestPart.body(last), promise: nil)
                    }
                    trailers = nil
                } else {
                    trailers = try await Exchange.write(body, to: channel)
                }
                try await channel.writeAndFlush(HTTPClientRequestPart.end(trailers))
                self.sent()
            } catch {
                self.failed(error)
            }
        }
        sending.withLockedValue { $0.task = task }
        // Whatever closes the connection stops the body, wherever it waits.
        channel.closeFuture.whenComplete { _ in task.cancel() }
    }

    /// Writes `body` to `channel` but for its end, and returns its trailers: one piece at a
    /// time, the next taken only once the last one was written; the last piece of a body of
    /// known length goes out with the end.
    private static func write(_ body: CourierRequestBody, to channel: any Channel) async throws -> HTTPHeaders? {
        var pieces = body.chunks().makeAsyncIterator()
        while let (piece, isLast) = try await pieces.nextPiece() {
            let part = HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: piece)))
            guard !isLast else {
                channel.write(part, promise: nil)
                break
            }
            try await channel.writeAndFlush(part)
        }
        return pieces.trailers.isEmpty ? nil : HTTPHeaders(pieces.trailers.map { ($0.name, $0.value) })
    }

    /// Writes the request's end, and tells when it went out. The callback is attached before
    /// the write is handed to the loop, which runs what it is handed in order: the end is
    /// known sent in the turn it went out, before any of the response can be read (attached
    /// after, it could run a turn later, once the response had ended, and the connection
    /// would be thought unfinished).
    private func writeEnd() {
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { result in
            switch result {
            case .success: self.sent()
            case .failure(let error): self.failed(error)
            }
        }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: written)
    }

    private func sent() {
        sending.withLockedValue { $0.isSent = true }
        // The server's silence counts from here.
        watched?.watch.requestSent()
    }

    /// The request could not be written whole: the connection closes. When the connection
    /// failed, what the server sent before (an early answer, or a TLS alert refusing the
    /// client certificate) says more than the failed write; when the body failed, its error
    /// is the exchange's.
    private func failed(_ error: any Error) {
        if !(error is ChannelError || error is IOError || error is CancellationError) {
            sending.withLockedValue { $0.failure = $0.failure ?? error }
        }
        channel.close(promise: nil)
    }

    private func makeHead() -> HTTPRequestHead {
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
        return head
    }

    /// `host` as it stands in an authority (`Host`, a `CONNECT` target): an IPv6 address in
    /// brackets.
    static func authorityHost(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// The response head, which arrived at `arrival`, as a ``CourierResponse`` with no body yet.
    func response(_ head: HTTPResponseHead, arrivedAt arrival: ClockReading) -> CourierResponse {
        var timing = Timing(start: start)
        timing.setFirstByte(arrival)
        return CourierResponse(
            status: Int(head.status.code),
            reasonPhrase: head.status.reasonPhrase,
            headers: Headers(received: head.headers),
            url: request.url,
            timing: timing,
            request: request,
            protocolVersion: CourierResponse.ProtocolVersion(head.version)
        )
    }

    /// What `error` means: a cancellation, the request's deadline, or `error` itself.
    func cause(of error: any Error) -> any Error {
        if Task.isCancelled { return CancellationError() }
        if let failure = sending.withLockedValue({ $0.failure }) { return failure }
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

    /// Whether the response has been read whole while the request body is still being sent
    /// (a full-duplex exchange whose server said all it would first): ``end()`` then waits
    /// for the body.
    var bodyOutlivesResponse: Bool {
        handoff.trailers != nil && !sending.withLockedValue { $0.isSent || $0.failure != nil }
    }

    /// Ends the exchange; returns whether the connection may carry another request.
    ///
    /// A response not read to its end closes the connection. A body still being sent after a
    /// response of status 300 or more is not wanted any more: it stops, and the connection
    /// closes. After a response below 300 the body goes on, as the server may still read it,
    /// until it ends, fails or the connection closes (the request's deadline, a
    /// cancellation).
    func end() async -> Bool {
        if let (watch, watchdog) = watched { watchdog.end(watch) }
        let (task, status) = sending.withLockedValue { ($0.isSent ? nil : $0.task, $0.status) }
        if handoff.close() || (task != nil && status >= 300) {
            // The response was not read to its end, or its body is not wanted.
            timer.withLockedValue { $0.scheduled?.cancel() }
            channel.close(promise: nil)
            return false
        }
        await task?.value
        timer.withLockedValue { $0.scheduled?.cancel() }
        // The response has ended here (the handoff was no longer running).
        let keepAlive = handoff.keptAlive
        let sent = sending.withLockedValue { $0.isSent }
        let closeRequested = request.headers["Connection"]?.lowercased().contains("close") ?? false
        return keepAlive && sent && !closeRequested && !timer.withLockedValue { $0.fired }
    }
}
