import NIOCore
import NIOHTTP1

/// The per-connection HTTP handler of ``TestServer``: collects each request, records it, routes it and
/// writes the response (honouring delays, streaming, back-pressure and keep-alive).
///
/// Runs entirely on the connection's event loop. `HTTPServerPipelineHandler` (installed before it) makes sure
/// only one request is handled at a time, even when the client pipelines.
final class TestServerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Requests with larger bodies are answered with 413 (the body is still read, but not stored).
    static let maximumBodySize = 512 * 1024 * 1024
    /// The maximum number of body steps written per event-loop tick before yielding.
    private static let stepsPerTick = 32

    private let log: RequestLog
    private let nonces: DigestNonces
    private let gates: Gates
    private let contents: PublishedContents
    private let ledger: IdempotencyLedger
    private let traffic: TrafficLedger
    private var requestHead: HTTPRequestHead?
    private var requestBody: ByteBuffer?
    private var requestBodyTooLarge = false
    private var requestTrailers: HTTPHeaders?
    /// The trailers of the response being written, sent with its end.
    private var responseTrailers: HTTPHeaders?
    private var sink: BodySink?
    /// The `/duplex` exchange in progress, which answers while its request arrives.
    private var duplex: DuplexResponder?

    private var activeSource: (any ResponseBodySource)?
    private var closeAfterResponse = false
    private var pumpScheduled = false
    private var pendingTask: Scheduled<Void>?
    private var isActive = true

    init(log: RequestLog, nonces: DigestNonces, gates: Gates, contents: PublishedContents, ledger: IdempotencyLedger, traffic: TrafficLedger) {
        self.traffic = traffic
        self.log = log
        self.nonces = nonces
        self.gates = gates
        self.contents = contents
        self.ledger = ledger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            if let duplex = DuplexResponder(head: head) {
                self.duplex = duplex
                duplex.start(context: context)
                return
            }
            self.requestHead = head
            self.requestTrailers = nil
            self.requestBodyTooLarge = false
            if BodySink.accepts(head) {
                self.sink = BodySink()
                self.requestBody = nil
            } else {
                self.sink = nil
                self.requestBody = context.channel.allocator.buffer(capacity: 0)
            }
            if head.headers[canonicalForm: "expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                let interim = HTTPResponseHead(version: head.version, status: .continue)
                context.writeAndFlush(self.wrapOutboundOut(.head(interim)), promise: nil)
            }
        case .body(var chunk):
            if let duplex = self.duplex {
                duplex.take(chunk, context: context)
            } else if let sink = self.sink {
                sink.consume(chunk)
            } else if (self.requestBody?.readableBytes ?? 0) + chunk.readableBytes > Self.maximumBodySize {
                self.requestBodyTooLarge = true
                self.requestBody?.clear()
            } else if !self.requestBodyTooLarge {
                self.requestBody?.writeBuffer(&chunk)
            }
        case .end(let trailers):
            if let duplex = self.duplex {
                self.duplex = nil
                _ = self.log.append(duplex.end(trailers: trailers, context: context))
                return
            }
            self.requestTrailers = trailers
            guard let head = self.requestHead else { return }
            let body = self.requestBody.map { Array($0.readableBytesView) } ?? []
            let sinkResponse = self.sink?.response()
            self.requestHead = nil
            self.requestBody = nil
            self.sink = nil
            self.handle(context: context, head: head, body: body, response: sinkResponse)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.isActive = false
        self.pendingTask?.cancel()
        self.pendingTask = nil
        self.activeSource = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Protocol errors were already answered with 400 by HTTPServerProtocolErrorHandler; any error is fatal.
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            self.pump(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    /// Records and answers a request; `response`, when given, is the answer already decided
    /// (the sink's), else the route's.
    private func handle(context: ChannelHandlerContext, head: HTTPRequestHead, body: [UInt8], response: TestResponse? = nil) {
        let count = self.log.append(RecordedRequest(head: head, body: body))
        var request = TestRequest(
            head: head,
            body: body,
            port: context.channel.localAddress?.port ?? 0,
            remoteAddress: context.channel.remoteAddress?.ipAddress,
            requestCount: count.total,
            sameURICount: count.sameURI,
            nonces: self.nonces,
            ledger: self.ledger,
            contents: self.contents,
            traffic: self.traffic
        )
        request.trailers = self.requestTrailers
        let response =
            response
            ?? (self.requestBodyTooLarge
                ? TestResponse.error(.payloadTooLarge, "request body too large")
                : TestServerRoutes.response(for: request))
        if let gate = response.gate {
            self.gates.wait(at: gate, on: context.eventLoop).hop(to: context.eventLoop).assumeIsolated().whenSuccess {
                self.send(response, for: request, context: context)
            }
        } else if response.delay > .zero {
            self.pendingTask = context.eventLoop.assumeIsolated().scheduleTask(in: response.delay) {
                self.pendingTask = nil
                self.send(response, for: request, context: context)
            }
        } else {
            self.send(response, for: request, context: context)
        }
    }

    private func send(_ response: TestResponse, for request: TestRequest, context: ChannelHandlerContext) {
        guard self.isActive else { return }
        var headers = response.headers
        let mayHaveBody = response.status.mayHaveResponseBody
        var close = response.closeConnection || !request.head.isKeepAlive
        var fixedBody: [UInt8]?
        var source: (any ResponseBodySource)?
        self.responseTrailers = nil
        headers.remove(name: "content-length")
        headers.remove(name: "transfer-encoding")
        switch response.body {
        case .empty:
            if mayHaveBody { headers.add(name: "Content-Length", value: "0") }
        case .bytes(let bytes):
            if mayHaveBody {
                headers.add(name: "Content-Length", value: String(bytes.count))
                fixedBody = bytes
            }
        case .stream(let length, let bodySource):
            if mayHaveBody {
                if let length {
                    headers.add(name: "Content-Length", value: String(length))
                } else if request.head.version.supportsChunking {
                    headers.add(name: "Transfer-Encoding", value: "chunked")
                    self.responseTrailers = response.trailers
                } else {
                    close = true
                }
                source = bodySource
            }
        }
        if request.isHead {
            fixedBody = nil
            source = nil
        }
        if close {
            headers.replaceOrAdd(name: "Connection", value: "close")
        } else if !request.head.version.supportsChunking {
            headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        let head = HTTPResponseHead(version: request.head.version, status: response.status, headers: headers)
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        self.closeAfterResponse = close
        if let fixedBody, !fixedBody.isEmpty {
            context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: fixedBody)))), promise: nil)
        }
        if let source {
            self.activeSource = source
            self.pump(context: context)
        } else {
            self.finishResponse(context: context)
        }
    }

    /// Writes body steps from the active source while the channel is writable.
    private func pump(context: ChannelHandlerContext) {
        guard self.isActive, !self.pumpScheduled, self.pendingTask == nil, let source = self.activeSource else {
            return
        }
        for _ in 0..<Self.stepsPerTick {
            guard context.channel.isWritable else {
                // channelWritabilityChanged resumes pumping.
                context.flush()
                return
            }
            switch source.next() {
            case .bytes(let bytes):
                if !bytes.isEmpty {
                    context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
                }
            case .pause(let delay):
                context.flush()
                self.pendingTask = context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
                    self.pendingTask = nil
                    self.pump(context: context)
                }
                return
            case .end:
                self.activeSource = nil
                self.finishResponse(context: context)
                return
            case .abort:
                self.activeSource = nil
                context.flush()
                context.close(promise: nil)
                return
            }
        }
        // Yield to other work on the event loop before producing more.
        context.flush()
        self.pumpScheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.pumpScheduled = false
            self.pump(context: context)
        }
    }

    private func finishResponse(context: ChannelHandlerContext) {
        let close = self.closeAfterResponse
        self.closeAfterResponse = false
        let trailers = self.responseTrailers
        self.responseTrailers = nil
        let written = context.writeAndFlush(self.wrapOutboundOut(.end(trailers)))
        if close {
            written.assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        }
    }
}

extension HTTPVersion {
    /// Whether this is HTTP/1.1 or later (chunked transfer coding and persistent connections by default).
    fileprivate var supportsChunking: Bool {
        self.major > 1 || (self.major == 1 && self.minor >= 1)
    }
}
