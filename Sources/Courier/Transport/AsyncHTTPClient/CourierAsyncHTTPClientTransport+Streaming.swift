import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

extension CourierAsyncHTTPClientTransport {
    nonisolated(nonsending) public func stream<Result: Sendable>(
        _ request: CourierHTTPRequest,
        deadline: ContinuousClock.Instant?,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        try await stream(request, deadline: deadline.map(ClockReading.init), tls: nil, body: body)
    }

    /// Sends `request` and hands its response to `body` once its head arrived; with `tls`, on
    /// connections of that TLS configuration (a pool of their own), else of the transport's.
    /// With an `admission`, the exchange starts once it holds its scheduler slot: a collected
    /// response's exchange is handed the admission (see ``send(_:deadline:tls:admission:)``),
    /// a streamed one waits for it here, and the slot stays taken while its body is read.
    nonisolated(nonsending) func stream<Result: Sendable>(
        _ request: CourierHTTPRequest,
        deadline: ClockReading?,
        tls: TLSConfiguration?,
        admission: Admission? = nil,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        if request.collectsResponseBody {
            // The client reads the body whole: the collecting delegate does it on the loop,
            // with one wake-up of the caller for the whole response.
            return try await body(StreamedResponse(whole: try await send(request, deadline: deadline, tls: tls, admission: admission)))
        }
        try await admission?.wait()
        let start = ClockReading.now
        let applied = try configuration.applying(request.connection, to: request.url)
        let numbered = relay.open(request, streamsResponse: true)
        let (ahcRequest, regions): (HTTPClient.Request, SentRegions?)
        do {
            (ahcRequest, regions) = try makeRequest(request, tls: tls, proxy: applied.proxy, exchange: numbered)
        } catch {
            _ = relay.close(numbered.number)
            throw error
        }
        let handoff = BodyHandoff()
        let watch = watchdogs.makeWatch(timeout: applied.readTimeout)
        let nioDeadline = deadline.map { NIODeadline.now() + .nanoseconds(($0 - start).nanoseconds) }
        let pool = try clients.clients(for: .init(connectTimeout: applied.connectTimeout, proxy: applied.proxy))
        let route = pool.route(to: request)
        let delegate = StreamingDelegate(
            handoff: handoff, url: request.url, method: request.method.rawValue, decompression: applied.decompression,
            regions: regions, watch: watch, earlyEnd: numbered.earlyEnd
        )
        let task = route.client.execute(
            request: ahcRequest, delegate: delegate, eventLoop: route.preference, deadline: nioDeadline, logger: logger
        )
        let watchdog = watchdogs.on(task.eventLoop)
        if let watch {
            watchdog.start(watch) { task.fail(reason: HTTPClientError.readTimeout) }
        }
        let relay = self.relay
        task.futureResult.whenComplete { outcome in
            // Whatever still writes the body stops.
            numbered.earlyEnd?.end()
            pool.release(route)
            if let watch { watchdog.end(watch) }
            regions?.close()
            // Called on the delegate's loop. The parts that came before a failure and that
            // AsyncHTTPClient dropped go to the reader before the failure.
            var remainder: [ByteBuffer] = []
            if case .failure = outcome { remainder = delegate.decoded(numbered.earlyEnd?.undelivered() ?? []) }
            handoff.end(outcome, trailers: relay.close(numbered.number), after: remainder)
        }
        let url = request.url
        let timeout = request.timeout
        return try await withTaskCancellationHandler {
            defer {
                // Whatever the reader left unread is dropped with the connection.
                if handoff.close() { task.cancel() }
            }
            let head: HTTPResponseHead
            let firstByte: ClockReading
            do {
                (head, firstByte) = try await handoff.head()
            } catch {
                throw mapped(error, url: url, timeout: timeout, proxy: applied.proxy)
            }
            var timing = Timing(start: start)
            timing.setFirstByte(firstByte)
            let response = CourierResponse(
                status: Int(head.status.code),
                reasonPhrase: head.status.reasonPhrase,
                headers: Headers(received: head.headers),
                url: url,
                timing: timing,
                request: request,
                protocolVersion: CourierResponse.ProtocolVersion(head.version)
            )
            let pieces = ResponseBodyStream(
                next: {
                    do {
                        return try await handoff.next().map(BodyHandoff.joined)
                    } catch {
                        throw CourierAsyncHTTPClientTransport.map(error, url: url, timeout: timeout, responseStarted: true)
                    }
                },
                trailers: { handoff.trailers }
            )
            return try await body(StreamedResponse(head: response, body: pieces))
        } onCancel: {
            task.cancel()
        }
    }
}

/// Passes a response from AsyncHTTPClient to its reader, decoded.
///
/// AsyncHTTPClient calls a delegate on the request's event loop, one call at a time, so its
/// decoder is confined to that loop.
private final class StreamingDelegate: SendReporting, @unchecked Sendable {
    typealias Response = Void
    let handoff: BodyHandoff
    let regions: SentRegions?
    let watch: ReadWatchdog.Watch?
    private let url: URL
    private let method: String
    private let decompression: Decompression
    private var decoder: ContentDecoder?
    /// Where a response that ends while the request body is still being sent says so.
    private let earlyEnd: EarlyEnd?
    private var hasEnded = false
    /// Whether decoding failed: nothing after that is decoded.
    private var decodingFailed = false

    init(
        handoff: BodyHandoff, url: URL, method: String, decompression: Decompression, regions: SentRegions?,
        watch: ReadWatchdog.Watch?, earlyEnd: EarlyEnd?
    ) {
        self.handoff = handoff
        self.url = url
        self.method = method
        self.decompression = decompression
        self.regions = regions
        self.watch = watch
        self.earlyEnd = earlyEnd
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        watch?.heard()
        do {
            decoder = try ContentDecoder.make(for: head, method: method, decompression: decompression, url: url)
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        handoff.receive(head)
        if let earlyEnd {
            let loop = task.eventLoop
            earlyEnd.onCompletion { trailers in
                loop.execute { self.end(trailers: trailers) }
            }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        var piece = buffer
        if let decoder {
            do {
                piece = try decoder.decode(buffer)
            } catch {
                decodingFailed = true
                return task.eventLoop.makeFailedFuture(error)
            }
            guard piece.readableBytes > 0 else {
                watch?.heard()
                earlyEnd?.delivered(buffer.readableBytes)
                return task.eventLoop.makeSucceededVoidFuture()
            }
        }
        let taken = handoff.offer(piece, on: task.eventLoop)
        // Counted once this part is on its way to the reader.
        earlyEnd?.delivered(buffer.readableBytes)
        guard let watch else { return taken }
        // Nothing more is read until the reader takes this part: the silence is the reader's.
        watch.pause()
        taken.whenComplete { _ in watch.resume() }
        return taken
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {}

    /// `parts` of the body that AsyncHTTPClient dropped when the exchange failed, decoded as
    /// the ones before them; the decoded bytes that can be told, up to a part that does not
    /// decode. Call on the delegate's loop, after the exchange ended.
    func decoded(_ parts: [ByteBuffer]) -> [ByteBuffer] {
        guard !parts.isEmpty, !decodingFailed, !hasEnded else { return [] }
        guard let decoder else { return parts }
        var decoded: [ByteBuffer] = []
        for part in parts {
            guard let piece = try? decoder.decode(part) else { break }
            if piece.readableBytes > 0 { decoded.append(piece) }
        }
        return decoded
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        guard !hasEnded else { return }
        try decoder?.finish()
    }

    /// The response ended while the request body was still being sent, and its whole body has
    /// been handed over: its reader gets the end (or the decoder's complaint) now.
    private func end(trailers: HTTPHeaders?) {
        guard !hasEnded else { return }
        hasEnded = true
        do {
            try decoder?.finish()
            handoff.end(.success(()), trailers: trailers)
        } catch {
            handoff.end(.failure(error))
        }
    }
}
