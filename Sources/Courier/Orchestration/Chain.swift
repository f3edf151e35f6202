/// Steps run one after another, where each step sees the results of the steps before it and
/// decides what to send next: one request, several in parallel, or nothing (YTKChainRequest).
///
/// ```swift
/// let chain = Chain { history in
///     switch history.count {
///     case 0:
///         return .send(CourierRequest<Session>(method: .post, path: "/login"))
///     case 1:
///         let session: Session = try history[0].value()
///         var request = CourierRequest<[Order]>(path: "/orders")
///         request.headers.add(name: "Authorization", value: "Bearer \(session.token)")
///         return .send(request)
///     default:
///         return .stop
///     }
/// }
/// let history = try await client.run(chain)
/// ```
public struct Chain: Sendable {
    /// Decides the next step from the results of the steps so far (empty for the first).
    /// Throwing stops the chain with ``ChainError``.
    public typealias Decision = @Sendable (_ history: [ChainStepResult]) async throws -> ChainStep

    let decide: Decision
    /// Called when the chain starts and when it stops.
    public var hooks: ChainHooks

    /// Creates a chain whose steps `decide` chooses.
    public init(hooks: ChainHooks = ChainHooks(), _ decide: @escaping Decision) {
        self.hooks = hooks
        self.decide = decide
    }
}

/// What a chain does next.
public struct ChainStep: Sendable {
    enum Action: Sendable {
        case send(Batch)
        case stop
    }

    let action: Action

    /// Sends one request; if it fails, the chain stops with its error.
    public static func send<Value>(_ request: CourierRequest<Value>) -> ChainStep {
        var batch = Batch(mode: .failFast, maximumConcurrency: 1)
        batch.add(request)
        return ChainStep(action: .send(batch))
    }

    /// Sends the requests of `batch` in parallel, within its concurrency bound. A failure in a
    /// ``Batch/Mode/failFast`` batch stops the chain; in a ``Batch/Mode/settle`` batch it is
    /// reported to the next decision, which chooses what to do.
    public static func send(_ batch: Batch) -> ChainStep {
        ChainStep(action: .send(batch))
    }

    /// Ends the chain successfully.
    public static let stop = ChainStep(action: .stop)
}

/// The results of one step of a chain.
public struct ChainStepResult: Sendable {
    /// The step's position in the chain, from 0.
    public let step: Int
    /// The result of each request the step sent, in the order they were added.
    public let results: BatchResults

    /// The value of the step's request at `index`; 0, the default, for a step that sent one
    /// request.
    ///
    /// - Throws: The error that request failed with, or ``CourierError/Kind/decodingFailed``
    ///   when its value is not a `Value`.
    public func value<Value>(at index: Int = 0, as type: Value.Type = Value.self) throws -> Value {
        let untyped = try results.result(at: index).get()
        guard let value = untyped as? Value else {
            throw CourierError(
                .decodingFailed,
                "Request \(index) of chain step \(step) produced a \(Swift.type(of: untyped)), not a \(Value.self); ask for the type the request decodes to."
            )
        }
        return value
    }
}

/// Called when a chain starts and when it stops, like YTKNetwork's request accessories.
public struct ChainHooks: Sendable {
    /// Called before the first decision.
    public var willStart: (@Sendable () -> Void)?
    /// Called once the chain has stopped, with every step's results or the error that stopped
    /// it.
    public var didStop: (@Sendable (Result<[ChainStepResult], ChainError>) -> Void)?

    /// Creates hooks.
    public init(
        willStart: (@Sendable () -> Void)? = nil,
        didStop: (@Sendable (Result<[ChainStepResult], ChainError>) -> Void)? = nil
    ) {
        self.willStart = willStart
        self.didStop = didStop
    }
}

/// Thrown by a chain whose step failed, whose decision threw, or which was cancelled.
public struct ChainError: Error, Sendable, CustomStringConvertible {
    /// The step that failed, from 0.
    public let step: Int
    /// Why: the failing request's error, the decision's error, or a
    /// ``CourierError/Kind/cancelled`` error.
    public let error: any Error
    /// The results of the steps that completed before the failure.
    public let history: [ChainStepResult]

    /// Says which step failed and why, safe to print (see ``PrintableText``).
    public var description: String {
        PrintableText.escaping("Step \(step) of the chain failed, so the chain stopped: \(error)")
    }
}
