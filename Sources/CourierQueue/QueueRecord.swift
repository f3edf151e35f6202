import Courier
import Foundation

/// A durable request and where it stands, as the queue's database holds it.
public struct QueueRecord: Sendable, Identifiable {
    /// Where a record stands.
    public enum State: String, Codable, Sendable, CaseIterable {
        /// Waiting for its next attempt.
        case pending
        /// Being sent now by the worker holding its ``QueueRecord/lease``; when that worker
        /// dies, another sends it again once the lease has ended (at once on the same host).
        case inFlight = "in-flight"
        /// A final response arrived and was recorded.
        case delivered
        /// A final failure: a 4xx the server will answer again, an unusable request, or too
        /// many attempts. The response, if any, is kept in ``QueueRecord/outcome``.
        case failed
        /// Its maximum age passed before it could be delivered.
        case expired

        /// Whether the record is finished and will not be sent again unless retried.
        public var isFinal: Bool { self == .delivered || self == .failed || self == .expired }
    }

    /// The record's identifier, a UUID.
    public let id: String
    /// The request.
    public var request: QueuedRequest
    /// Where the record stands.
    public var state: State
    /// Attempts started so far.
    public var attempts: Int
    /// When the record was written.
    public var createdAt: Date
    /// When the next attempt may start.
    public var nextAttemptAt: Date
    /// When the record expires; `nil` for never.
    public var expiresAt: Date?
    /// The final response or failure, or the last failure of an attempt.
    public var outcome: QueueOutcome?
    /// The record's place in the queue: earlier records have smaller numbers.
    public var sequence: Int64
    /// The hold of the worker sending the record; `nil` unless it is ``State/inFlight``.
    public var lease: QueueLease?

    /// Creates a record as a storage read it.
    package init(
        id: String, request: QueuedRequest, state: State, attempts: Int, createdAt: Date, nextAttemptAt: Date, expiresAt: Date?,
        outcome: QueueOutcome?, sequence: Int64, lease: QueueLease? = nil
    ) {
        self.id = id
        self.request = request
        self.state = state
        self.attempts = attempts
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt
        self.expiresAt = expiresAt
        self.outcome = outcome
        self.sequence = sequence
        self.lease = lease
    }
}

/// The answer a queued request got, or why an attempt failed, as kept in the database.
public struct QueueOutcome: Codable, Sendable, Hashable {
    /// The response's status; `nil` when no response arrived.
    public var status: Int?
    /// The reason phrase.
    public var reasonPhrase: String
    /// The response's header fields.
    public var headers: Headers
    /// The response's body.
    public var body: Data
    /// The failure, when no response arrived (`kind: message`).
    public var failure: String?
    /// When the outcome was recorded.
    public var recordedAt: Date
    /// The credential headers the request lacked when its turn came, so that it was not sent
    /// (``failure`` says why); `nil` otherwise.
    public var missingCredentials: [String]?

    /// Creates an outcome.
    public init(
        status: Int?, reasonPhrase: String = "", headers: Headers = Headers(), body: Data = Data(), failure: String? = nil,
        recordedAt: Date, missingCredentials: [String]? = nil
    ) {
        self.status = status
        self.reasonPhrase = reasonPhrase
        self.headers = headers
        self.body = body
        self.failure = failure
        self.recordedAt = recordedAt
        self.missingCredentials = missingCredentials
    }

    init(_ response: CourierResponse, at date: Date) {
        self.init(status: response.status, reasonPhrase: response.reasonPhrase, headers: response.headers, body: response.body, recordedAt: date)
    }

    init(_ error: CourierError, at date: Date) {
        self.init(status: nil, failure: "\(error.kind): \(error.message)", recordedAt: date)
    }

    /// The recorded answer as a ``CourierResponse`` for `url`; `nil` when no response arrived.
    public func response(url: URL) -> CourierResponse? {
        guard let status else { return nil }
        return CourierResponse(status: status, reasonPhrase: reasonPhrase, headers: headers, body: body, url: url)
    }
}

/// Something that happened to a record, as ``DurableQueue/events()`` reports it.
public enum QueueEvent: Sendable {
    /// The record was written to the database.
    case queued(QueueRecord)
    /// An attempt starts; ``QueueRecord/attempts`` counts it.
    case attempt(QueueRecord)
    /// The attempt failed or got an answer that asks to try again; the record waits until
    /// ``QueueRecord/nextAttemptAt``.
    case waiting(QueueRecord)
    /// A final response arrived and was recorded.
    case delivered(QueueRecord, CourierResponse)
    /// The record failed for good; its ``QueueRecord/outcome`` says why.
    case failed(QueueRecord)
    /// The record's maximum age passed before delivery.
    case expired(QueueRecord)
    /// The record's turn came, but it lacks the credential headers `missing` (see
    /// ``QueuedRequest/credentialHeaderNames``) and was not sent. It stays pending, its
    /// attempts unchanged, and is tried again after ``CourierRetryPolicy/maximumDelay``, when a queue
    /// is opened on the database, or after ``DurableQueue/credentialsChanged()``.
    case needsCredentials(QueueRecord, missing: [String])

    /// The record the event is about.
    public var record: QueueRecord {
        switch self {
        case .queued(let record), .attempt(let record), .waiting(let record), .delivered(let record, _),
            .failed(let record), .expired(let record), .needsCredentials(let record, _):
            return record
        }
    }
}
