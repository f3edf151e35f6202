import Courier
import Foundation
import NIOConcurrencyHelpers

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request's life in a URLSession: its head and body as the session's delegate receives
/// them, handed to the reader that waits for them.
///
/// States: waiting for the head → reading the body → ended (the session completed the task,
/// or the exchange failed: a deadline, a reader that fell too far behind, a body past the
/// decompression ratio). Every event after the end is ignored, so a late callback cannot
/// resume a reader twice.
///
/// The session calls it on its delegate queue, the reader from its own task; a lock keeps
/// the two apart, and no continuation is resumed while it is held.
final class SessionExchange: Sendable {
    /// What the reader gets: a piece of the body, or the end of it.
    private struct State {
        var head: Result<HTTPURLResponse, CourierError>?
        var headWaiter: CheckedContinuation<HTTPURLResponse, any Error>?
        /// Body bytes received and not yet taken, joined into one piece.
        var pending = Data()
        var pieceWaiter: CheckedContinuation<Data?, any Error>?
        /// Set once the session completed the task or the exchange failed.
        var end: Result<Void, CourierError>?
        var decodedBytes = 0
        /// The compressed size the server announced, when the body is compressed and says so.
        var compressedLength: Int?
        /// The compressed length the server announced, whatever the decompression settings.
        var announcedCompressedLength: Int?
        var isSuspended = false
        /// The reader of a collected response, waiting for all of it.
        var wholeWaiter: CheckedContinuation<(HTTPURLResponse, Data), any Error>?
        /// The largest body a collected response may have; `nil` while streamed.
        var collectLimit: Int?
        /// Whether the session asked for credentials after delivering the response.
        var wasChallenged = false
        /// Whether the session has completed the task.
        var isTaskDone = false
        /// The session's task, once the control queue has made it.
        var task: URLSessionDataTask?
    }

    let url: URL
    let method: String
    /// Told of the body bytes the session has sent in all, when the task sends a file itself.
    let reportSent: (@Sendable (_ sent: Int64) -> Void)?
    private let limits: SessionLimits
    private let state = NIOLockedValueBox(State())

    init(url: URL, method: String, limits: SessionLimits, sent reportSent: (@Sendable (Int64) -> Void)? = nil) {
        self.url = url
        self.method = method
        self.limits = limits
        self.reportSent = reportSent
    }

    // MARK: The task

    /// Keeps `task`; returns `false` when the exchange has already ended (cancelled before its
    /// task was made), in which case the task must not be started.
    func attach(_ task: URLSessionDataTask) -> Bool {
        state.withLockedValue { state in
            state.task = task
            return state.end == nil
        }
    }

    /// The session's task, once made.
    var task: URLSessionDataTask? {
        state.withLockedValue { $0.task }
    }

    /// Whether the response's head has arrived (or the exchange ended without one).
    var hasHead: Bool {
        state.withLockedValue { $0.head != nil || $0.end != nil }
    }

    /// Whether the session has completed the task, so that there is nothing to cancel.
    var isTaskDone: Bool {
        state.withLockedValue { $0.isTaskDone }
    }

    /// The session completed the task, with `error` when it failed.
    func sessionCompleted(_ error: CourierError?) {
        state.withLockedValue { $0.isTaskDone = true }
        complete(error)
    }

    // MARK: Events from the session

    /// The session asked for credentials; the challenge is refused, which ends the task.
    func challenged() {
        state.withLockedValue { $0.wasChallenged = true }
    }

    /// Whether a cancelled end is the refused challenge's: the response had arrived and
    /// nothing else ended the exchange.
    var endsWithRefusedChallenge: Bool {
        state.withLockedValue { $0.wasChallenged && $0.end == nil && $0.head != nil }
    }

    /// The response's head arrived.
    func receive(_ response: HTTPURLResponse) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<HTTPURLResponse, any Error>? in
            guard state.head == nil, state.end == nil else { return nil }
            state.head = .success(response)
            state.announcedCompressedLength = SessionExchange.compressedLength(of: response)
            if case .enabled = limits.decompression { state.compressedLength = state.announcedCompressedLength }
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: response)
    }

    /// A piece of the body arrived (already inflated by the session when it was compressed).
    /// Returns what the task must do: nothing, pause, or stop because the exchange failed.
    func receive(_ data: Data) -> Flow {
        var failure: CourierError?
        var flow = Flow.proceed
        let waiter = state.withLockedValue { state -> CheckedContinuation<Data?, any Error>? in
            guard state.end == nil else { return nil }
            state.decodedBytes += data.count
            if let compressed = state.compressedLength, case .enabled(let ratio) = limits.decompression,
                state.decodedBytes > 1024, state.decodedBytes / max(1, ratio) > compressed
            {
                failure = ratioExceeded(ratio)
            } else if let limit = state.collectLimit, state.pending.count + data.count > limit {
                failure = ResponseBodyStream.tooLarge(limit)
            } else if state.pending.count + data.count > limits.maximumBufferedBytes {
                failure = fellBehind()
            }
            if let failure {
                state.end = .failure(failure)
                state.pending = Data()
                flow = .stop
                defer { state.pieceWaiter = nil }
                return state.pieceWaiter
            }
            if let waiter = state.pieceWaiter {
                state.pieceWaiter = nil
                return waiter
            }
            if state.pending.isEmpty { state.pending = data } else { state.pending.append(data) }
            if state.pending.count >= limits.pauseThreshold, !state.isSuspended {
                state.isSuspended = true
                flow = .pause
            }
            return nil
        }
        if let failure {
            waiter?.resume(throwing: failure)
        } else if let waiter {
            waiter.resume(returning: data)
        }
        return flow
    }

    /// The session completed the task, with `error` when it failed.
    func complete(_ error: CourierError?) {
        let waiters = state.withLockedValue { state -> (CheckedContinuation<HTTPURLResponse, any Error>?, CheckedContinuation<Data?, any Error>?, Result<Void, CourierError>) in
            if state.end == nil {
                if let error {
                    state.end = .failure(error)
                } else if state.head == nil {
                    state.end = .failure(CourierError(.connectionFailed, "The server closed the connection before any of the response; retry, or check the server's logs.", url: url))
                } else if state.decodedBytes == 0, let announced = state.announcedCompressedLength, announced > 0,
                    case .success(let head) = state.head, SessionExchange.hasBody(method: method, status: head.statusCode)
                {
                    // libcurl inflates the body itself and ends a coding it cannot undo, or a
                    // compressed stream that breaks off, with nothing: that is not an empty body.
                    state.end = .failure(CourierError(.malformedResponse, "The compressed response body (\(announced) bytes) could not be inflated by URLSession; it was cut short, or its coding is not one URLSession reads.", url: url))
                } else {
                    state.end = .success(())
                }
            }
            let end = state.end!
            if state.head == nil, case .failure(let failure) = end { state.head = .failure(failure) }
            defer {
                state.headWaiter = nil
                if state.pending.isEmpty { state.pieceWaiter = nil }
            }
            return (state.headWaiter, state.pending.isEmpty ? state.pieceWaiter : nil, end)
        }
        let (headWaiter, pieceWaiter, end) = waiters
        let whole = state.withLockedValue { state -> (CheckedContinuation<(HTTPURLResponse, Data), any Error>, Result<(HTTPURLResponse, Data), CourierError>)? in
            guard let waiter = state.wholeWaiter else { return nil }
            state.wholeWaiter = nil
            switch (end, state.head) {
            case (.success, .success(let head)?):
                defer { state.pending = Data() }
                return (waiter, .success((head, state.pending)))
            case (.failure(let failure), _):
                return (waiter, .failure(failure))
            default:
                return (waiter, .failure(CourierError(.connectionFailed, "The exchange ended without a response.", url: url)))
            }
        }
        if let (waiter, outcome) = whole { waiter.resume(with: outcome) }
        if let headWaiter {
            if case .failure(let failure) = end { headWaiter.resume(throwing: failure) }
        }
        if let pieceWaiter {
            switch end {
            case .success: pieceWaiter.resume(returning: nil)
            case .failure(let failure): pieceWaiter.resume(throwing: failure)
            }
        }
    }

    /// Ends the exchange with `error` unless it has already ended; returns whether it did.
    @discardableResult
    func fail(_ error: CourierError) -> Bool {
        let ended = state.withLockedValue { state in
            guard state.end == nil else { return false }
            state.end = .failure(error)
            state.pending = Data()
            return true
        }
        if ended { complete(error) }
        return ended
    }

    // MARK: The reader

    /// Waits for the response's head.
    func head() async throws -> HTTPURLResponse {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLockedValue { state -> Result<HTTPURLResponse, CourierError>? in
                if let head = state.head { return head }
                state.headWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The head and the whole body, in one wait: for a response the client collects anyway,
    /// one wake-up instead of one for the head and one for each piece.
    ///
    /// - Throws: ``CourierError/Kind/responseTooLarge`` once the body grows past `limit`;
    ///   the exchange's failure.
    func whole(upTo limit: Int) async throws -> (HTTPURLResponse, Data) {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLockedValue { state -> Result<(HTTPURLResponse, Data), CourierError>? in
                state.collectLimit = limit
                switch state.end {
                case .failure(let failure):
                    return .failure(failure)
                case .success:
                    guard case .success(let head)? = state.head else { return .failure(CourierError(.connectionFailed, "The exchange ended without a response.", url: url)) }
                    defer { state.pending = Data() }
                    return .success((head, state.pending))
                case nil:
                    if state.pending.count > limit {
                        let failure = ResponseBodyStream.tooLarge(limit)
                        state.end = .failure(failure)
                        state.pending = Data()
                        return .failure(failure)
                    }
                    state.wholeWaiter = continuation
                    return nil
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The body received since the last call, waiting for some when none is pending; `nil`
    /// after the end. Calls `resume` when the reader has made room in a paused task.
    func next(resume: @Sendable () -> Void) async throws -> Data? {
        var resumes = false
        let piece: Data? = try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLockedValue { state -> Result<Data?, CourierError>? in
                if !state.pending.isEmpty {
                    defer { state.pending = Data() }
                    if state.isSuspended {
                        state.isSuspended = false
                        resumes = true
                    }
                    return .success(state.pending)
                }
                switch state.end {
                case .success: return .success(nil)
                case .failure(let failure): return .failure(failure)
                case nil:
                    state.pieceWaiter = continuation
                    if state.isSuspended {
                        state.isSuspended = false
                        resumes = true
                    }
                    return nil
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
        if resumes { resume() }
        return piece
    }

    // MARK: Failures

    private func ratioExceeded(_ ratio: Int) -> CourierError {
        CourierError(
            .decompressionLimitExceeded,
            "The compressed body expanded more than \(ratio) times its size; it was refused as a possible zip bomb. Raise the decompression ratio if it is legitimate.",
            url: url
        )
    }

    private func fellBehind() -> CourierError {
        CourierError(
            .transport,
            "The response body arrived more than \(limits.maximumBufferedBytes) bytes ahead of its reader, and URLSession on this platform cannot pause a transfer; read it faster, or use the default transport, which paces the network by the reader.",
            url: url
        )
    }

    /// Whether a response to `method` with `status` carries a body at all (RFC 9110 §6.4.1).
    private static func hasBody(method: String, status: Int) -> Bool {
        !(method == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304)
    }

    /// The compressed length `response` announces, when its body is compressed.
    private static func compressedLength(of response: HTTPURLResponse) -> Int? {
        guard let coding = response.value(forHTTPHeaderField: "Content-Encoding")?.lowercased(),
            !coding.isEmpty, coding != "identity"
        else { return nil }
        return response.value(forHTTPHeaderField: "Content-Length").flatMap(ContentLength.parse).flatMap { Int(exactly: $0) }
    }
}

extension SessionExchange {
    /// What the session's task does after a piece of the body.
    enum Flow {
        case proceed
        /// Stop reading until the reader has taken what is pending.
        case pause
        /// Cancel the task: the exchange has failed.
        case stop
    }
}

/// The bounds an exchange keeps to.
struct SessionLimits: Sendable {
    var decompression: Decompression
    /// Pending bytes past which a task that can pause is paused.
    var pauseThreshold: Int
    /// Pending bytes past which the exchange fails, where the task cannot pause.
    var maximumBufferedBytes: Int
}
