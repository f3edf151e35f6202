/// Receives a request's lifecycle events (YTKNetwork's request accessories).
///
/// Every method has an empty default; implement the ones you need. Calls happen on the task
/// running the request, in order: `requestWillStart`, then `requestWillStop`, then
/// `requestDidStop`, with `requestDidChangeState` for every transition in between.
public protocol RequestObserver: Sendable {
    /// The request is about to enter the pipeline.
    func requestWillStart(_ event: RequestEvent)
    /// The request has a result (``RequestEvent/response`` or ``RequestEvent/error``) and is
    /// about to finish.
    func requestWillStop(_ event: RequestEvent)
    /// The request finished; ``RequestEvent/state`` is terminal.
    func requestDidStop(_ event: RequestEvent)
    /// The request moved from ``RequestEvent/previousState`` to ``RequestEvent/state``.
    func requestDidChangeState(_ event: RequestEvent)
    /// An attempt failed (``RequestEvent/response`` or ``RequestEvent/error`` says how) and the
    /// request will be sent again after ``RequestEvent/retryDelay``.
    func requestWillRetry(_ event: RequestEvent)
    /// A message is about to be sent: the first request, a redirect hop or an answer to a
    /// challenge, with its credentials and cookies (see ``ExchangeEvent``).
    func exchangeWillSend(_ event: ExchangeEvent)
    /// The response head of a message arrived, before redirects or challenges are acted on.
    func exchangeDidReceive(_ event: ExchangeEvent)
}

extension RequestObserver {
    public func requestWillStart(_ event: RequestEvent) {}
    public func requestWillStop(_ event: RequestEvent) {}
    public func requestDidStop(_ event: RequestEvent) {}
    public func requestDidChangeState(_ event: RequestEvent) {}
    public func requestWillRetry(_ event: RequestEvent) {}
    public func exchangeWillSend(_ event: ExchangeEvent) {}
    public func exchangeDidReceive(_ event: ExchangeEvent) {}
}

/// What an observer is told about a request.
public struct RequestEvent: Sendable {
    /// The request.
    public var request: CourierHTTPRequest
    /// The state now.
    public var state: RequestState
    /// The state before the latest transition.
    public var previousState: RequestState
    /// The response, once there is one.
    public var response: CourierResponse?
    /// The error, when the request failed or was cancelled.
    public var error: (any Error)?
    /// When the request started.
    public var start: ContinuousClock.Instant
    /// The attempt the event is about, from 1.
    public var attempt: Int = 1
    /// For ``RequestObserver/requestWillRetry(_:)``: the wait before the next attempt.
    public var retryDelay: Duration?
    /// Time since the start.
    public var elapsed: Duration { ContinuousClock.now - start }
}

/// Closures called at a request's lifecycle events.
///
/// ```swift
/// configuration.observers.append(EventHooks(didStop: { event in
///     print(event.request.url, event.state, event.elapsed)
/// }))
/// ```
public struct EventHooks: RequestObserver {
    let willStart: (@Sendable (RequestEvent) -> Void)?
    let willStop: (@Sendable (RequestEvent) -> Void)?
    let didStop: (@Sendable (RequestEvent) -> Void)?
    let stateChange: (@Sendable (RequestEvent) -> Void)?
    let willRetry: (@Sendable (RequestEvent) -> Void)?

    /// Creates hooks; pass the closures you need.
    public init(
        willStart: (@Sendable (RequestEvent) -> Void)? = nil,
        willStop: (@Sendable (RequestEvent) -> Void)? = nil,
        didStop: (@Sendable (RequestEvent) -> Void)? = nil,
        stateChange: (@Sendable (RequestEvent) -> Void)? = nil,
        willRetry: (@Sendable (RequestEvent) -> Void)? = nil
    ) {
        self.willRetry = willRetry
        self.willStart = willStart
        self.willStop = willStop
        self.didStop = didStop
        self.stateChange = stateChange
    }

    public func requestWillStart(_ event: RequestEvent) { willStart?(event) }
    public func requestWillStop(_ event: RequestEvent) { willStop?(event) }
    public func requestDidStop(_ event: RequestEvent) { didStop?(event) }
    public func requestDidChangeState(_ event: RequestEvent) { stateChange?(event) }
    public func requestWillRetry(_ event: RequestEvent) { willRetry?(event) }
}
