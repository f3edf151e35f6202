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
    /// Run on the loop when the response has ended whole, with its status (see
    /// ``ExchangeHandler/Start/ended``).
    private let whenEnded: (@Sendable (Exchange, _ status: Int, _ keepAlive: Bool) -> Void)?

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
        /// Whether the exchange was ended (``end()`` or ``endNow()``), which happens once.
        var isEnded = false
        /// Whether the task's cancellation closed the connection.
        var isCancelled = false
    }

    /// An exchange of `request` on `connection` whose response goes to `handoff` (by default,
    /// a new one: see ``handoff(for:)``). `whenEnded` runs on the loop once the response has
    /// ended whole, before anything else happens on the connection.
    init(
        connection: Connection, request: CourierHTTPRequest, start: ClockReading, decompression: Decompression,
        readTimeout: Duration?, watchdogs: ReadWatchdogs, sendsFileRegions: Bool = false, handoff: BodyHandoff? = nil,
        whenEnded: (@Sendable (Exchange, _ status: Int, _ keepAlive: Bool) -> Void)? = nil
    ) {
        self.connection = connection
        self.sendsFileRegions = sendsFileRegions
        self.request = request
        self.start = start
        self.decompression = decompression
        self.handoff = handoff ?? Exchange.handoff(for: request)
        self.whenEnded = whenEnded
        self.watched = watchdogs.makeWatch(timeout: readTimeout).map { ($0, watchdogs.on(connection.channel.eventLoop)) }
    }

    /// Where the response to `request` goes. A response the client reads whole wakes it once
    /// (an upgrade's never has a body). A streamed body wakes its reader once per burst of
    /// reads (its handler tells the end of each).
    static func handoff(for request: CourierHTTPRequest) -> BodyHandoff {
        BodyHandoff(collects: request.collectsResponseBody && request.upgrade == nil, wakesPerBurst: true)
    }

    /// Writes the request and waits for the response head, and when it arrived; for a
    /// response read whole, until the response ended (see ``BodyHandoff``).
    nonisolated(nonsending) func run(deadline: ContinuousClock.Instant?) async throws -> (HTTPResponseHead, ClockReading) {
        begin(deadline: deadline)
        do {
            return try await whileCancellable {
                let arrival = try await self.handoff.head()
                self.received(arrival.0)
                return arrival
            }
        } catch {
            throw self.cause(of: error)
        }
    }

    /// Starts the exchange without waiting for it: the request's total timeout from now on
    /// (`deadline`), its read timeout, and the request written. Its response goes to
    /// ``handoff``.
    func begin(deadline: ContinuousClock.Instant?) {
        // One hop to the loop for the whole start, not one for each of its steps: a caller off
        // the loop wakes it once.
        if channel.eventLoop.inEventLoop {
            start(deadline: deadline)
        } else {
            channel.eventLoop.execute { self.start(deadline: deadline) }
        }
    }

    /// ``begin(deadline:)`` on the loop. An exchange that ended before (its task cancelled
    /// while the start was on its way) starts nothing.
    private func start(deadline: ContinuousClock.Instant?) {
        guard !sending.withLockedValue({ $0.isEnded }) else { return }
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
        register()
        write()
    }

    /// The response head arrived (read from ``handoff``).
    func received(_ head: HTTPResponseHead) {
        sending.withLockedValue { $0.status = head.status.code }
    }

    /// Runs `body`; cancelling the task closes the connection, which ends the exchange.
    nonisolated(nonsending) func whileCancellable<T: Sendable>(_ body: nonisolated(nonsending) () async throws -> T) async throws -> T {
        try await withTaskCancellationHandler(operation: body, onCancel: { self.cancel() })
    }

    /// Closes the connection, unless the exchange has ended: by then the connection may carry
    /// another one (see ``endNow()``).
    func cancel() {
        let closes = sending.withLockedValue { sending in
            guard !sending.isEnded else { return false }
            sending.isCancelled = true
            return true
        }
        if closes { channel.close(promise: nil) }
    }

    /// Tells the connection's ``ExchangeHandler`` where the response goes, on its loop, ahead of
    /// the request's parts (the loop runs what it is handed in order). Not waited for: when the
    /// handler cannot take it (the connection closed), the handoff fails instead.
    private func register() {
        let channel = self.channel
        let handoff = self.handoff
        var made = ExchangeHandler.Start(
            handoff: handoff, url: request.url, method: request.method.rawValue, decompression: decompression, watch: watched?.watch
        )
        if let whenEnded {
            made.ended = { @Sendable status, keepAlive in whenEnded(self, status, keepAlive) }
        }
        let start = made
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
        // The URL's own parse gives the path and query as they were written: read, not parsed again.
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        var head = HTTPRequestHead(version: .http1_1, method: NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue), uri: target)
        head.headers.reserveCapacity(request.headers.count + 2)
        for field in request.headers { head.headers.add(name: field.name, value: field.value) }
        if !head.headers.contains(name: "Host"), let host = url.host {
            head.headers.add(name: "Host", value: Exchange.authorityHost(host) + (url.port.map { ":\($0)" } ?? ""))
        }
        if let length = request.body?.length {
            head.headers.replaceOrAdd(name: "Content-Length", value: String(length))
        } else if request.body == nil, request.method == .post || request.method == .put || request.method == .patch {
            head.headers.replaceOrAdd(name: "Content-Length", value: "0")
        }
        return head
    }

    /// `host` as it stands in an authority (`Host`, a `CONNECT` target): an IPv6 address in
    /// brackets.
    static func authorityHost(_ host: String) -> String {
        host.utf8.contains(UInt8(ascii: ":")) && host.utf8.first != UInt8(ascii: "[") ? "[\(host)]" : host
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

    /// Ends the exchange; returns whether the connection may carry another request, or `nil`
    /// when it had ended already (``endNow()``).
    ///
    /// A response not read to its end closes the connection. A body still being sent after a
    /// response of status 300 or more is not wanted any more: it stops, and the connection
    /// closes. After a response below 300 the body goes on, as the server may still read it,
    /// until it ends, fails or the connection closes (the request's deadline, a
    /// cancellation).
    nonisolated(nonsending) func end() async -> Bool? {
        let claimed = sending.withLockedValue { sending -> (task: Task<Void, Never>?, status: UInt)? in
            guard !sending.isEnded else { return nil }
            sending.isEnded = true
            return (sending.isSent ? nil : sending.task, sending.status)
        }
        guard let (task, status) = claimed else { return nil }
        if let (watch, watchdog) = watched { watchdog.end(watch) }
        if handoff.close() || (task != nil && status >= 300) {
            // The response was not read to its end, or its body is not wanted.
            timer.withLockedValue { $0.scheduled?.cancel() }
            channel.close(promise: nil)
            return false
        }
        await task?.value
        // The response has ended here (the handoff was no longer running).
        return finished(keepAlive: handoff.keptAlive)
    }

    /// Ends the exchange at once, on its loop, once its response has ended whole (with the
    /// server's `keepAlive`) and its request went out whole: returns whether the connection
    /// may carry another request, or `nil` when the exchange had ended already or its body
    /// still goes out (``end()`` then ends it). Its reader may still be reading the response,
    /// which is whole in ``handoff``: cancelling the task no longer closes the connection.
    func endNow(keepAlive: Bool) -> Bool? {
        let claimed = sending.withLockedValue { sending -> Bool? in
            guard !sending.isEnded, sending.isSent else { return nil }
            sending.isEnded = true
            return !sending.isCancelled
        }
        guard let open = claimed else { return nil }
        if let (watch, watchdog) = watched { watchdog.end(watch) }
        return finished(keepAlive: keepAlive) && open
    }

    /// Whether the connection may carry another request once the exchange ended, its response
    /// whole (the server keeping the connection alive when `keepAlive`) and its request body
    /// done; stops the request's total-timeout clock.
    private func finished(keepAlive: Bool) -> Bool {
        timer.withLockedValue { $0.scheduled?.cancel() }
        let sent = sending.withLockedValue { $0.isSent }
        let closeRequested = request.headers["Connection"]?.lowercased().contains("close") ?? false
        return keepAlive && sent && !closeRequested && !timer.withLockedValue { $0.fired }
    }
}
