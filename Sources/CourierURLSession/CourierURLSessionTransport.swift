import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``Transport`` that sends through URLSession: on Linux through FoundationNetworking
/// (libcurl), on Apple platforms through the system's URL loading, with its proxy, VPN and
/// cellular settings and App Transport Security.
///
/// Courier stays in charge of everything above one exchange: URLSession follows no redirect
/// (the client's ``RedirectPolicy`` does), answers no authentication challenge, keeps no
/// cookies and caches nothing (the client's cookie jar and ``CacheConfiguration`` do).
///
/// ```swift
/// let settings = ClientConfiguration(baseURL: URL(string: "https://api.example.com"))
/// let name = try await CourierClient.withClient(configuration: settings, transport: try CourierURLSessionTransport(configuration: settings)) { client in
///     try await client.send(CourierRequest<JSONValue>(path: "/users/1"))["name"]
/// }
/// ```
///
/// Settings URLSession cannot honour are refused when the transport is made, never ignored:
/// custom trusted roots, pins and client certificates (``ClientConfiguration/tls``), a
/// proxy, and on Linux a minimum TLS version other than 1.2. The URLSession transport
/// article lists every difference from the default transport.
public final class CourierURLSessionTransport: Transport {
    private let session: URLSession
    private let delegate: SessionDelegate
    private let limits: SessionLimits
    /// Where every call that makes, starts or cancels a task is made; see
    /// ``begin(_:for:)``.
    let control = DispatchQueue(label: "courier.urlsession.control")
    let readTimeout: Duration?
    /// The session that carries downloads to files and uploads of files, when background
    /// transfers were asked for.
    let background: BackgroundSession?

    /// Creates a transport with the connection settings of `configuration`.
    ///
    /// - Throws: ``CourierError/Kind/invalidConfiguration`` when `configuration` asks for
    ///   something URLSession cannot do on this platform (see the type's description).
    public convenience init(configuration: ClientConfiguration = ClientConfiguration()) throws(CourierError) {
        try self.init(configuration: configuration, maximumBufferedBytes: CourierURLSessionTransport.defaultMaximumBufferedBytes)
    }

    /// Creates a transport that carries every download to a file
    /// (``CourierClient/download(_:to:options:)``) and every request with a file body
    /// (``CourierRequestBody/file(_:contentType:)``) on the session `backgroundTransfers`
    /// describes, so that on Apple platforms they go on while the app is suspended, and their
    /// results wait for the app's next launch; other requests go as they do without it.
    ///
    /// - Throws: ``CourierError/Kind/invalidConfiguration`` as ``init(configuration:)`` does,
    ///   and when the background transfers folder cannot be made the owner's alone.
    public convenience init(configuration: ClientConfiguration = ClientConfiguration(), backgroundTransfers: BackgroundTransfers) throws(CourierError) {
        try self.init(
            configuration: configuration, maximumBufferedBytes: CourierURLSessionTransport.defaultMaximumBufferedBytes, backgroundTransfers: backgroundTransfers
        )
    }

    /// Creates a transport that fails an exchange whose unread body grows past
    /// `maximumBufferedBytes` where URLSession cannot pause a transfer.
    init(configuration: ClientConfiguration, maximumBufferedBytes: Int, backgroundTransfers: BackgroundTransfers? = nil) throws(CourierError) {
        try CourierURLSessionTransport.refuseUnsupported(configuration)
        let transport = configuration.transportConfiguration
        let settings = CourierURLSessionTransport.settings(.ephemeral, for: transport)
        // The client's own deadline bounds an exchange; URLSession adds none.
        settings.timeoutIntervalForResource = CourierURLSessionTransport.seconds(nil)
        let delegate = SessionDelegate()
        self.delegate = delegate
        self.session = URLSession(configuration: settings, delegate: delegate, delegateQueue: CourierURLSessionTransport.delegateQueue())
        self.background = try backgroundTransfers.map { transfers throws(CourierError) in try BackgroundSession(transfers, transport: transport) }
        self.readTimeout = transport.readTimeout
        self.limits = SessionLimits(
            decompression: transport.decompression,
            pauseThreshold: CourierURLSessionTransport.pauseThreshold,
            maximumBufferedBytes: maximumBufferedBytes
        )
    }

    public func send(_ request: CourierHTTPRequest, deadline: ContinuousClock.Instant?) async throws -> CourierResponse {
        try await stream(request, deadline: deadline) { response in
            if let length = response.head.headers.contentLength, length > Int64(request.maximumBodySize),
                response.head.headers["Content-Encoding"] == nil
            {
                throw CourierError(
                    .responseTooLarge,
                    "The response body is larger than the \(request.maximumBodySize)-byte limit; raise CourierRequest.maximumBodySize or ClientConfiguration.limits.maximumBodySize, or download it to a file.",
                    url: request.url
                )
            }
            return try await response.collected(upTo: request.maximumBodySize)
        }
    }

    nonisolated(nonsending) public func stream<Result: Sendable>(
        _ request: CourierHTTPRequest,
        deadline: ContinuousClock.Instant?,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        if request.isFileDownload, request.body == nil, let background {
            return try await download(request, on: background, deadline: deadline, body: body)
        }
        let start = ContinuousClock.now
        let startDate = Date()
        var route = Route.data
        if let background, let file = request.body?.sourceFile {
            let key = TransferLedger.key(for: request)
            if let kept = background.ledger.claim(key) {
                return try await respond(to: request, from: kept, in: background.ledger, startDate: startDate, start: start, body: body)
            }
            // The system reads the file itself: it is checked before and after instead.
            try file.checkUnchanged(isSent: false)
            route = .upload(file.url, name: TransferLedger.name(for: key), on: background)
        }
        let (urlRequest, upload) = try makeURLRequest(request, sendsBody: route.sendsBody)
        var limits = self.limits
        if let decompression = request.connection.decompression { limits.decompression = decompression }
        let exchange = SessionExchange(url: request.url, method: request.method.rawValue, limits: limits, sent: route.reportsSent(of: request.body))
        begin(urlRequest, for: exchange, route: route)
        let timer = CourierURLSessionTransport.timer(until: deadline, for: request, advice: "raise CourierRequest.timeout for slow endpoints") { failure in
            if exchange.fail(failure) { self.cancel(exchange) }
        }
        return try await withTaskCancellationHandler {
            defer {
                timer?.cancel()
                upload?.cancel()
                // Whatever the reader left unread is dropped with the task.
                if !exchange.isTaskDone { cancel(exchange) }
            }
            let head: HTTPURLResponse
            var collected: Data?
            do {
                if request.collectsResponseBody {
                    // The client reads the body whole: one wake-up for the whole response.
                    (head, collected) = try await exchange.whole(upTo: request.maximumBodySize)
                } else {
                    head = try await exchange.head()
                }
            } catch {
                throw upload?.failure ?? error
            }
            if case .upload = route { try request.body?.sourceFile?.checkUnchanged(isSent: true) }
            var timing = Timing(startDate: startDate, start: start)
            timing.firstByte = .now
            let response = CourierResponse(
                status: head.statusCode,
                reasonPhrase: HTTPURLResponse.localizedString(forStatusCode: head.statusCode),
                headers: CourierURLSessionTransport.headers(of: head),
                url: request.url,
                timing: timing,
                request: request
            )
            if let collected {
                return try await body(StreamedResponse(head: response, body: ResponseBodyStream(collected: collected)))
            }
            let pieces = ResponseBodyStream { [control] in
                do {
                    return try await exchange.next {
                        guard let task = exchange.task else { return }
                        control.async { CourierURLSessionTransport.resume(task) }
                    }
                } catch {
                    throw upload?.failure ?? error
                }
            }
            return try await body(StreamedResponse(head: response, body: pieces))
        } onCancel: {
            exchange.fail(CourierError(.cancelled, "The request was cancelled.", url: request.url))
            cancel(exchange)
        }
    }

    /// Makes and starts the task of `exchange` on the control queue: a data task of the
    /// transport's session, or an upload task of the background session that sends a file.
    ///
    /// FoundationNetworking's calls that make, start and cancel tasks wait for the session's
    /// own queue, which waits in turn while it reads a streamed request body whose next piece
    /// is still being produced on Swift's pool. Made from the pool, those calls could hold every
    /// pool thread, and the piece would never come; made from the control queue, a pool thread
    /// never waits for the session.
    private func begin(_ urlRequest: URLRequest, for exchange: SessionExchange, route: Route) {
        control.async { [session, delegate] in
            let task: URLSessionDataTask
            let registry: TaskRegistry<SessionExchange>
            switch route {
            case .data:
                task = session.dataTask(with: urlRequest)
                registry = delegate.exchanges
            case .upload(let file, let name, let background):
                task = background.session.uploadTask(with: urlRequest, fromFile: file)
                task.taskDescription = name
                registry = background.delegate.exchanges
            }
            registry.register(exchange, for: task.taskIdentifier)
            if exchange.attach(task) {
                task.resume()
            } else {
                registry.unregister(task.taskIdentifier)
                task.cancel()
            }
        }
    }

    /// A timer that calls `expire` with a timeout error naming `request`'s total timeout once
    /// `deadline` has passed, unless it is cancelled first; `nil` without a deadline.
    ///
    /// It runs on a dispatch queue, not on Swift's pool: the session's events arrive on
    /// threads of their own, and a timer on a pool that other work keeps busy could fire only
    /// after a late response had already been delivered.
    static func timer(
        until deadline: ContinuousClock.Instant?, for request: CourierHTTPRequest, advice: String,
        expire: @escaping @Sendable (CourierError) -> Void
    ) -> DispatchWorkItem? {
        deadline.map { deadline in
            let (timeout, url) = (request.timeout, request.url)
            let item = DispatchWorkItem {
                expire(
                    CourierError(
                        .timeout, "The request did not finish within its total timeout\(timeout.map { " of \($0)" } ?? ""); \(advice).", url: url
                    )
                )
            }
            DispatchQueue.global().asyncAfter(deadline: dispatchTime(of: deadline), execute: item)
            return item
        }
    }

    /// The dispatch time of `instant`: as far from `DispatchTime.now()` as `instant` is from
    /// now; a past instant is now, and one beyond a century is a century away.
    static func dispatchTime(of instant: ContinuousClock.Instant) -> DispatchTime {
        let remaining = ContinuousClock.now.duration(to: instant)
        guard remaining > .zero else { return .now() }
        let capped = min(remaining, .seconds(3_153_600_000))
        let nanoseconds = capped.components.seconds * 1_000_000_000 + capped.components.attoseconds / 1_000_000_000
        return .now() + .nanoseconds(Int(nanoseconds))
    }

    /// Cancels the task of `exchange`, if it was made, from the control queue.
    private func cancel(_ exchange: SessionExchange) {
        guard let task = exchange.task else { return }
        control.async { task.cancel() }
    }

    /// Cancels every exchange in flight and releases the session. A background downloads
    /// session is released without cancelling its downloads: they belong to the system until
    /// they finish, and their results wait in the folder for the next download of the same
    /// request.
    public func shutdown() async throws {
        await withCheckedContinuation { continuation in
            control.async { [session, background] in
                session.invalidateAndCancel()
                background?.session.finishTasksAndInvalidate()
                continuation.resume()
            }
        }
    }

    /// The settings every session of the transport shares, applied to `settings`: URLSession
    /// keeps no cache, cookie or credential of its own, and takes the connection settings of
    /// `transport`.
    static func settings(_ settings: URLSessionConfiguration, for transport: TransportConfiguration) -> URLSessionConfiguration {
        settings.urlCache = nil
        settings.requestCachePolicy = .reloadIgnoringLocalCacheData
        settings.httpCookieStorage = nil
        settings.httpShouldSetCookies = false
        settings.httpCookieAcceptPolicy = .never
        settings.urlCredentialStorage = nil
        settings.httpMaximumConnectionsPerHost = transport.maximumConnectionsPerHost
        settings.timeoutIntervalForRequest = seconds(transport.readTimeout)
        applyTLSFloor(transport.minimumTLSVersion, to: settings)
        return settings
    }

    /// A serial queue for a session's delegate calls.
    static func delegateQueue() -> OperationQueue {
        let queue = OperationQueue()
        queue.name = "courier.urlsession"
        queue.maxConcurrentOperationCount = 1
        return queue
    }
}
