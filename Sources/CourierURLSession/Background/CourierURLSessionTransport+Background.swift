import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session that carries a transport's downloads to files and uploads from files, with its
/// delegate and the folder where results wait.
struct BackgroundSession: Sendable {
    let session: URLSession
    let delegate: SessionDelegate
    let ledger: TransferLedger

    init(_ transfers: BackgroundTransfers, transport: TransportConfiguration) throws(CourierError) {
        guard !transfers.identifier.isEmpty else {
            throw CourierError(.invalidConfiguration, "BackgroundTransfers.identifier is empty; name the session, the same at every launch.")
        }
        ledger = try TransferLedger(folder: transfers.folder)
        delegate = SessionDelegate(ledger: ledger)
        #if canImport(FoundationNetworking)
        let base = URLSessionConfiguration.ephemeral
        #else
        let base = URLSessionConfiguration.background(withIdentifier: transfers.identifier)
        base.sessionSendsLaunchEvents = true
        #endif
        session = URLSession(
            configuration: CourierURLSessionTransport.settings(base, for: transport),
            delegate: delegate,
            delegateQueue: CourierURLSessionTransport.delegateQueue()
        )
    }
}

extension CourierURLSessionTransport {
    /// Sends a download to a file as a task of `background`, or answers it from a
    /// result the session finished while nobody waited; the body is read from the kept file
    /// and deleted once `body` returns.
    nonisolated(nonsending) func download<Result: Sendable>(
        _ request: CourierHTTPRequest,
        on background: BackgroundSession,
        deadline: ContinuousClock.Instant?,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        let start = ContinuousClock.now
        let startDate = Date()
        let key = TransferLedger.key(for: request)
        let entry: TransferLedger.Entry
        if let kept = background.ledger.claim(key) {
            entry = kept
        } else {
            let (urlRequest, _) = try makeURLRequest(request)
            entry = try await waitForDownload(urlRequest, of: request, name: TransferLedger.name(for: key), on: background, deadline: deadline)
        }
        return try await respond(to: request, from: entry, in: background.ledger, startDate: startDate, start: start, body: body)
    }

    /// Answers `request` with the result kept as `entry`, read from its file; the result is
    /// deleted once `body` returns or throws.
    nonisolated(nonsending) func respond<Result: Sendable>(
        to request: CourierHTTPRequest,
        from entry: TransferLedger.Entry,
        in ledger: TransferLedger,
        startDate: Date,
        start: ContinuousClock.Instant,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        defer { ledger.remove(entry.name) }
        if let failure = CourierURLSessionTransport.refusal(ofStatus: entry.head.status, url: request.url) { throw failure }
        var timing = Timing(startDate: startDate, start: start)
        timing.firstByte = .now
        var headers = Headers()
        for field in entry.head.fields { headers.add(name: field[0], value: field[1]) }
        let response = CourierResponse(
            status: entry.head.status,
            reasonPhrase: HTTPURLResponse.localizedString(forStatusCode: entry.head.status),
            headers: headers,
            url: request.url,
            timing: timing,
            request: request
        )
        let file = try KeptBody(entry.body, url: request.url)
        defer { file.close() }
        return try await body(StreamedResponse(head: response, body: ResponseBodyStream { try file.next() }))
    }

    /// Starts a task for `urlRequest` named `name` (a download task, or a data task on Linux),
    /// and waits until the session has kept its body, the deadline has passed, or the caller is
    /// cancelled.
    nonisolated(nonsending) private func waitForDownload(
        _ urlRequest: URLRequest, of request: CourierHTTPRequest, name: String, on background: BackgroundSession, deadline: ContinuousClock.Instant?
    ) async throws -> TransferLedger.Entry {
        let url = request.url
        let exchange = DownloadTaskExchange(url: url, partFile: background.ledger.partFile(name), reportReceived: request.reportsReceived)
        control.async {
            #if canImport(FoundationNetworking)
            // The body goes to the ledger's part file as it arrives (see `DownloadTaskExchange`).
            let task = background.session.dataTask(with: urlRequest)
            #else
            let task = background.session.downloadTask(with: urlRequest)
            #endif
            task.taskDescription = name
            background.delegate.downloads.register(exchange, for: task.taskIdentifier)
            if exchange.attach(task) {
                task.resume()
            } else {
                background.delegate.downloads.unregister(task.taskIdentifier)
                task.cancel()
            }
        }
        let timer = CourierURLSessionTransport.timer(
            until: deadline, for: request, advice: "raise CourierRequest.timeout, or leave it unset for background transfers"
        ) { [control] failure in
            if exchange.fail(failure), let task = exchange.task { control.async { task.cancel() } }
        }
        defer { timer?.cancel() }
        return try await withTaskCancellationHandler {
            try await exchange.wait()
        } onCancel: { [control] in
            exchange.fail(CourierError(.cancelled, "The request was cancelled.", url: url))
            if let task = exchange.task { control.async { task.cancel() } }
        }
    }

    #if canImport(Darwin)
    /// Calls `handler` once the system has delivered every event of the background downloads
    /// session; give it the completion handler of the app delegate's
    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)`, after making the
    /// transport with the same identifier.
    public func finishBackgroundEvents(then handler: @escaping @Sendable () -> Void) {
        guard let background else { return handler() }
        background.delegate.backgroundEventsHandler.withLockedValue { $0 = handler }
    }
    #endif
}

/// A kept body, read in pieces from its file.
private final class KeptBody: Sendable {
    private let handle: FileHandle
    private let url: URL

    /// The largest piece read at once.
    static let pieceBytes = 256 * 1024

    init(_ file: URL, url: URL) throws(CourierError) {
        do {
            handle = try FileHandle(forReadingFrom: file)
        } catch {
            throw CourierError(.connectionFailed, "The downloaded body kept at \(file.path) could not be read: \(error.localizedDescription); download again.", url: url)
        }
        self.url = url
    }

    func next() throws -> Data? {
        do {
            let piece = try handle.read(upToCount: KeptBody.pieceBytes) ?? Data()
            return piece.isEmpty ? nil : piece
        } catch {
            throw CourierError(.connectionFailed, "The downloaded body could not be read from its kept file: \(error.localizedDescription); download again.", url: url)
        }
    }

    func close() {
        try? handle.close()
    }
}
