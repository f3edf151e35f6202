import AsyncHTTPClient
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

/// The default transport, on AsyncHTTPClient.
///
/// It drives AsyncHTTPClient through its response-delegate API, which costs about half the CPU
/// per request of its async/await API, streams request bodies, collects response bodies up to
/// the request's limit, and undoes compressed bodies (``Decompression``) within a ratio limit. Redirects are
/// not followed here: the client follows them, so that its credential rules apply.
public final class CourierAsyncHTTPClientTransport: Transport {
    /// The instances per connect timeout and proxy.
    let clients: ClientsBySettings
    let logger: Logger
    /// The transport's settings, which a request's ``CourierHTTPRequest/connection`` overrides.
    let configuration: TransportConfiguration
    /// The watchdogs that enforce each exchange's read timeout.
    let watchdogs: ReadWatchdogs
    /// Carries trailers and early ends between exchanges and their connections, which the
    /// delegate API does not.
    let relay = ExchangeRelay()

    /// Creates a transport with its own connection pool on the shared event loops.
    public convenience init(configuration: TransportConfiguration = TransportConfiguration(), logger: Logger? = nil) {
        self.init(configuration: configuration, logger: logger, tls: configuration.minimumTLSVersion.clientConfiguration())
    }

    /// Creates a transport whose connections use `tls`; tests give one that trusts their own
    /// authority, to reach in-process servers through AsyncHTTPClient's own TLS (HTTP/2 included).
    init(configuration: TransportConfiguration, logger: Logger?, tls: TLSConfiguration) {
        var settings = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            // The read timeout is the watchdog's (see ReadWatchdog): AsyncHTTPClient's costs
            // three timers per response. The connect timeout is set per instance
            // (ClientsBySettings).
            timeout: .init(connect: nil, read: nil)
        )
        settings.tlsConfiguration = tls
        settings.connectionPool = .init(
            idleTimeout: .nanoseconds(configuration.idleConnectionTimeout.nanoseconds),
            concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, configuration.maximumConnectionsPerHost)
        )
        // A refused or unreachable host fails the request at once rather than after the
        // connect timeout; retrying is the retry policy's decision, not the pool's.
        settings.connectionPool.retryConnectionEstablishment = configuration.retriesFailedConnections
        // Bodies are decoded by the delegates (ContentDecoder): every layer, none for a response
        // without a body, and a typed error for a coding Courier cannot undo.
        settings.decompression = .disabled
        // Every HTTP/1.1 connection gets a tap that carries each exchange's trailers and early
        // end (see ExchangeRelay) and refuses status codes outside 100–999, which
        // AsyncHTTPClient would stop the process on (the StatusCodeGuard rule).
        let relay = self.relay
        settings.http1_1ConnectionDebugInitializer = { channel in
            channel.eventLoop.submit {
                try ExchangeTap.install(on: channel, relay: relay)
            }
        }
        // And every HTTP/2 stream, against a `:status` NIOHTTP2 or AsyncHTTPClient would stop
        // the process on (see HTTP2StatusCodeGuard).
        settings.http2StreamChannelDebugInitializer = { stream in
            stream.eventLoop.submit {
                try HTTP2StatusCodeGuard.install(on: stream)
                try ExchangeTap.install(onStream: stream, relay: relay)
            }
        }
        self.configuration = configuration
        self.watchdogs = ReadWatchdogs(group: MultiThreadedEventLoopGroup.singleton)
        // Courier opens the spans itself, one per request and one per message, with the
        // context sent in the message's fields (RequestTracing). AsyncHTTPClient's own span
        // would start on an event loop, outside the task, and so be a trace of its own.
        settings.tracing.tracer = nil
        var logger = logger ?? Logger(label: "courier.transport", factory: { _ in SwiftLogNoOpLogHandler() })
        // AsyncHTTPClient's trace lines print whole message heads, credentials and cookies
        // included; it gets the logger at debug level at most, so no secret reaches a log.
        if logger.logLevel < .debug { logger.logLevel = .debug }
        self.clients = ClientsBySettings(
            template: settings, key: .init(connectTimeout: configuration.connectTimeout, proxy: configuration.proxy), logger: logger
        )
        self.logger = logger
    }

    public func send(_ request: CourierHTTPRequest, deadline: ContinuousClock.Instant?) async throws -> CourierResponse {
        try await send(request, deadline: deadline.map(ClockReading.init), tls: nil)
    }

    /// Sends `request` and collects its response; with `tls`, on connections of that TLS
    /// configuration (a pool of their own), else of the transport's. With an `admission`, the
    /// exchange starts once it holds its scheduler slot, and gives it back as soon as the
    /// response is complete (see ``exchange(_:delegate:to:through:deadline:watch:regions:admission:status:)``).
    /// It runs where its caller runs, as the request path does. The deadline is a reading
    /// (see ``ClockReading``): an asynchronous frame would allocate an instant.
    nonisolated(nonsending) func send(
        _ request: CourierHTTPRequest, deadline: ClockReading?, tls: TLSConfiguration?, admission: Admission? = nil
    ) async throws -> CourierResponse {
        let now = ClockReading.now
        let applied = try configuration.applying(request.connection, to: request.url)
        let numbered = relay.open(request, streamsResponse: false)
        // The exchange is closed once: with its trailers read on success, here otherwise.
        var isClosed = false
        defer {
            // Whatever still writes the body stops.
            numbered.earlyEnd?.end()
            if !isClosed { _ = relay.close(numbered.number) }
        }
        let (ahcRequest, regions) = try makeRequest(request, tls: tls, proxy: applied.proxy, exchange: numbered)
        let watch = watchdogs.makeWatch(timeout: applied.readTimeout)
        let delegate = CollectingDelegate(
            limit: request.maximumBodySize, url: request.url, method: request.method.rawValue, decompression: applied.decompression,
            regions: regions, watch: watch
        )
        let nioDeadline = deadline.map { NIODeadline.now() + .nanoseconds(($0 - now).nanoseconds) }
        let pool = try clients.clients(for: .init(connectTimeout: applied.connectTimeout, proxy: applied.proxy))
        let collected: CollectedResponse
        // When the exchange started, once it held its slot.
        var start = now
        do {
            (collected, start) = try await exchange(
                ahcRequest, delegate: delegate, to: request.origin, through: pool, deadline: nioDeadline, watch: watch, regions: regions,
                admission: admission, status: { Int($0.head.status.code) }
            )
        } catch let refused as Admission.Refused {
            throw refused.reason
        } catch let error as HTTPClientError where error == .requestStreamCancelled && delegate.earlyResponse != nil {
            // A 3xx-or-later response that ended before the request body did (a redirect or a
            // rejection sent as soon as the body was read) is a response, not a failure.
            collected = delegate.earlyResponse!
        } catch {
            throw mapped(error, url: request.url, timeout: request.timeout, proxy: applied.proxy, responseStarted: delegate.receivedHead)
        }
        var timing = Timing(start: start)
        timing.setFirstByte(collected.firstByte)
        timing.setEnd(.now)
        var response = CourierResponse(
            status: Int(collected.head.status.code),
            reasonPhrase: collected.head.status.reasonPhrase,
            headers: Headers(received: collected.head.headers),
            body: collected.body.map { buffer in buffer.withUnsafeReadableBytes { Data($0) } } ?? Data(),
            url: request.url,
            timing: timing,
            request: request,
            protocolVersion: CourierResponse.ProtocolVersion(collected.head.version)
        )
        response.trailers = Headers(trailerFields: relay.close(numbered.number))
        isClosed = true
        return response
    }

    public func shutdown() async throws {
        try await clients.shutdown()
    }

    /// The request for AsyncHTTPClient, and what its delegate must report sent parts to when
    /// the body goes out as file regions; `proxy` is the one it goes through, if any, and
    /// `exchange` as ``relay`` opened it.
    func makeRequest(
        _ request: CourierHTTPRequest, tls: TLSConfiguration?, proxy: Proxy?, exchange: ExchangeRelay.Opened
    ) throws(CourierError) -> (HTTPClient.Request, SentRegions?) {
        if let proxy, proxy.kind != .http {
            // A client's own transport routes these to its own connections; this transport,
            // used alone, would otherwise speak plain HTTP to a SOCKS5 or TLS proxy.
            var error = CourierError(
                .invalidConfiguration,
                "CourierAsyncHTTPClientTransport cannot go through the proxy \(proxy); give the proxy to a CourierClient made without a transport of its own, which speaks SOCKS5 and TLS to proxies.",
                url: request.url
            )
            error.requestMayHaveBeenSent = false
            throw error
        }
        // Room for the exchange marker and for what AsyncHTTPClient adds (Host, and the body's
        // framing field), so that the list is made once.
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 3)
        for field in request.headers.insideTunnel(of: proxy) { headers.add(name: field.name, value: field.value) }
        headers.add(name: ExchangeRelay.fieldName, value: exchange.marker)
        var body: HTTPClient.Body?
        var regions: SentRegions?
        if let requestBody = request.body {
            // Opened for every streamed body (ExchangeRelay.open).
            let earlyEnd = exchange.earlyEnd ?? EarlyEnd()
            if !requestBody.isStreamed, let data = requestBody.bytes {
                body = .bytes(data)
            } else if let segments = requestBody.multipartSegments, FileRegionBody.applies(to: request.url, proxy: proxy) {
                let sent = SentRegions()
                regions = sent
                let parts = FileRegionBody(segments: segments, reporter: requestBody.progressReporter, length: requestBody.length)
                body = streamed(length: requestBody.length, earlyEnd: earlyEnd) { writer, loop in
                    try await parts.write(to: StreamWriterRegions(writer: writer, earlyEnd: earlyEnd, sent: sent, loop: loop), on: loop)
                }
            } else {
                // Each piece is taken from the body only once the previous one is written
                // (or queued while the connection is writable), so a body read from disk
                // never piles up in memory, and a body whose next piece waits for the
                // response (full duplex) is sent as it is produced.
                let relay = self.relay
                body = streamed(length: requestBody.length, earlyEnd: earlyEnd) { writer, _ in
                    var pieces = requestBody.chunks().makeAsyncIterator()
                    while let (piece, isLast) = try await pieces.nextPiece() {
                        // The last piece of a body of known length goes out with its end.
                        if isLast { return .byteBuffer(ByteBuffer(bytes: piece)) }
                        try await earlyEnd.write(.byteBuffer(ByteBuffer(bytes: piece)), to: writer)
                    }
                    // The body's trailers, known once it has ended, go to the tap that
                    // writes the end.
                    relay.send(pieces.trailers, for: exchange.number)
                    return nil
                }
            }
        }
        do {
            let built = try HTTPClient.Request(
                url: request.url, method: .init(rawValue: request.method.rawValue), headers: headers, body: body, tlsConfiguration: tls
            )
            return (built, regions)
        } catch {
            throw CourierAsyncHTTPClientTransport.map(error, url: request.url, timeout: request.timeout)
        }
    }

    /// A body of `length` bytes (if known) that `send` writes from a task, all but the last
    /// piece, which it returns; it fails when `send` throws, and ends where it stands when
    /// `earlyEnd` tells that the response ended first (AsyncHTTPClient has closed the
    /// connection then, and waits for the end of the body to deliver the response).
    ///
    /// The last piece, when `send` returns one, and the end of the body are handed to
    /// AsyncHTTPClient in one turn of the request's event loop. A response of status below 300
    /// that ends before the body does reaches AsyncHTTPClient only after the body's end (the
    /// ``ExchangeTap`` holds it back; its reader is told at once): AsyncHTTPClient 1.37 would
    /// otherwise, when its reader had not asked for more yet, finish the request and drop the
    /// body's end that comes later, which the connection still waits for, keeping it leased
    /// for ever.
    private func streamed(
        length: Int64?, earlyEnd: EarlyEnd, _ send: @escaping @Sendable (HTTPClient.Body.StreamWriter, any EventLoop) async throws -> IOData?
    ) -> HTTPClient.Body {
        let group = clients.standard.shared.eventLoopGroup
        return .stream(contentLength: length) { writer in
            // AsyncHTTPClient calls this closure on the request's own loop.
            let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? group.any()
            let promise = loop.makePromise(of: Void.self)
            earlyEnd.watch(
                Task {
                    do {
                        let last = try await send(writer, loop)
                        loop.execute {
                            if let last, !earlyEnd.isEnded { _ = writer.write(last) }
                            promise.succeed()
                        }
                    } catch {
                        // Once the response ended first, the body stops where it stands.
                        if earlyEnd.isEnded { promise.succeed() } else { promise.fail(error) }
                    }
                })
            return promise.futureResult
        }
    }
}

/// A response head and its collected body.
private struct CollectedResponse: Sendable {
    var head: HTTPResponseHead
    var body: ByteBuffer?
    var firstByte: ClockReading
}

/// Collects a response body up to a limit.
///
/// AsyncHTTPClient calls a delegate only on the event loop of its request, one call at a
/// time, so its mutable state is confined to that loop.
private final class CollectingDelegate: SendReporting, @unchecked Sendable {
    typealias Response = CollectedResponse

    private let limit: Int
    private let url: URL
    private let method: String
    private let decompression: Decompression
    private var head: HTTPResponseHead?
    /// Whether the response's head arrived; read once the request has ended.
    var receivedHead: Bool { head != nil }
    private var firstByte = ClockReading.now
    private var body: ByteBuffer?
    private var decoder: ContentDecoder?
    let regions: SentRegions?
    let watch: ReadWatchdog.Watch?

    init(limit: Int, url: URL, method: String, decompression: Decompression, regions: SentRegions?, watch: ReadWatchdog.Watch?) {
        self.limit = limit
        self.url = url
        self.method = method
        self.decompression = decompression
        self.regions = regions
        self.watch = watch
    }

    func didReceiveHead(task: HTTPClient.Task<CollectedResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        watch?.heard()
        self.head = head
        self.firstByte = .now
        let status = Int(head.status.code)
        do {
            decoder = try ContentDecoder.make(for: head, method: method, decompression: decompression, url: url)
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        // Only a body that will arrive, as it will be kept, is checked against the limit up front.
        if decoder == nil, ContentDecoder.hasBody(method: method, status: status),
            let length = head.headers.first(name: "Content-Length").flatMap(ContentLength.parse), length > Int64(limit)
        {
            return task.eventLoop.makeFailedFuture(tooLarge())
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<CollectedResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        watch?.heard()
        var buffer = buffer
        if let decoder {
            do {
                buffer = try decoder.decode(buffer)
            } catch {
                return task.eventLoop.makeFailedFuture(error)
            }
        }
        if body == nil {
            guard buffer.readableBytes <= limit else { return task.eventLoop.makeFailedFuture(tooLarge()) }
            body = buffer
        } else {
            guard body!.readableBytes + buffer.readableBytes <= limit else {
                return task.eventLoop.makeFailedFuture(tooLarge())
            }
            body!.writeBuffer(&buffer)
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<CollectedResponse>, _ error: any Error) {}

    /// The response so far when it is 3xx or later. AsyncHTTPClient ends such a request as soon
    /// as the response has ended, and fails it with `requestStreamCancelled` if the request body
    /// signals its own end afterwards; by then every part of the response was delivered here.
    var earlyResponse: CollectedResponse? {
        guard let head, head.status.code >= 300 else { return nil }
        return CollectedResponse(head: head, body: body, firstByte: firstByte)
    }

    func didFinishRequest(task: HTTPClient.Task<CollectedResponse>) throws -> CollectedResponse {
        guard let head else { throw HTTPClientError.remoteConnectionClosed }
        try decoder?.finish()
        return CollectedResponse(head: head, body: body, firstByte: firstByte)
    }

    private func tooLarge() -> CourierError {
        CourierError(
            .responseTooLarge,
            "The response body is larger than the \(limit)-byte limit; raise CourierRequest.maximumBodySize or ClientConfiguration.limits.maximumBodySize, or download it to a file.",
            url: url
        )
    }
}
