import Courier
import Foundation

/// A request as the durable queue keeps it: everything needed to send it again, in another
/// process too, as a `Codable` value.
///
/// Build one from a ``CourierRequest`` with ``DurableQueue/enqueue(_:tag:isOrdered:maximumAge:)``, or
/// directly when the body lives in a file:
///
/// ```swift
/// var queued = QueuedRequest(method: .post, url: URL(string: "https://api.example.com/notes")!)
/// queued.body = .file(path: "/var/spool/app/note-17.json")
/// queued.headers.add(name: "Content-Type", value: "application/json")
/// let handle = try await queue.enqueue(queued)
/// ```
public struct QueuedRequest: Codable, Sendable, Hashable {
    /// Where the body's bytes are kept.
    public enum Body: Codable, Sendable, Hashable {
        /// The bytes, stored in the queue's database with the record.
        case data(Data)
        /// A file read at each attempt, piece by piece while it is sent; it must stay in place,
        /// unchanged, until the record is finished.
        case file(path: String)
    }

    /// The method.
    public var method: CourierHTTPMethod
    /// The absolute URL.
    public var url: URL
    /// The header fields as they are sent, `Idempotency-Key` included.
    public var headers: Headers
    /// The body, if any.
    public var body: Body?
    /// The key that lets the server apply the request once however often it arrives; sent as
    /// the `Idempotency-Key` header on every attempt.
    public var idempotencyKey: String
    /// A label of yours, shown by `courier queue list` and kept with the record.
    public var tag: String?
    /// Whether the request waits for earlier ordered requests to the same origin to finish
    /// (first in, first out per host); `true` by default.
    public var isOrdered: Bool
    /// How long the request may wait before it expires; `nil` uses
    /// ``QueueConfiguration/maximumAge``.
    public var maximumAge: Duration?
    /// The time allowed for one attempt; `nil` uses the client's total timeout.
    public var timeout: Duration?
    /// The names of the credential headers taken out of ``headers`` before the request was
    /// written to disk: `Authorization`, `Proxy-Authorization`, `Cookie`, the client's
    /// ``ClientConfiguration/sensitiveHeaders`` and the request's own
    /// ``CourierRequest/sensitiveHeaders``. Their values are never stored; at delivery they come from
    /// the queue that enqueued the request (while it stays open), from the delivering client,
    /// or from ``QueueConfiguration/credentials``, and a request that lacks one waits for it.
    /// You may list a name yourself for a header the request needs but that you never want
    /// written. Empty by default.
    public var credentialHeaderNames: [String]
    /// Whether the client that enqueued the request had credentials for its origin in
    /// ``ClientConfiguration/authentication``. Such a request is delivered only with
    /// credentials for that origin: the delivering client's, or an `Authorization` header from
    /// ``QueueConfiguration/credentials``. `false` by default.
    public var hadClientCredentials: Bool
    /// Whether the request was read from a record written before the queue kept
    /// credential names: such a request is sent with the client's credentials, as it was then.
    /// Never encoded.
    var predatesCredentialNames = false

    /// Creates a request. Unless `headers` already carry an `Idempotency-Key`, a new one (a
    /// UUID) is created and added; it is kept with the record and reused on every attempt.
    public init(
        method: CourierHTTPMethod,
        url: URL,
        headers: Headers = Headers(),
        body: Body? = nil,
        tag: String? = nil,
        isOrdered: Bool = true,
        maximumAge: Duration? = nil,
        timeout: Duration? = nil
    ) {
        var headers = headers
        if let given = headers[QueuedRequest.idempotencyKeyHeader], !given.isEmpty {
            idempotencyKey = given
        } else {
            idempotencyKey = UUID().uuidString.lowercased()
            headers.set(name: QueuedRequest.idempotencyKeyHeader, value: idempotencyKey)
        }
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.tag = tag
        self.isOrdered = isOrdered
        self.maximumAge = maximumAge
        self.timeout = timeout
        self.credentialHeaderNames = []
        self.hadClientCredentials = false
    }

    /// Decodes a request. Records written before ``credentialHeaderNames`` and
    /// ``hadClientCredentials`` existed decode with none and `false`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(CourierHTTPMethod.self, forKey: .method)
        url = try container.decode(URL.self, forKey: .url)
        headers = try container.decode(Headers.self, forKey: .headers)
        body = try container.decodeIfPresent(Body.self, forKey: .body)
        idempotencyKey = try container.decode(String.self, forKey: .idempotencyKey)
        tag = try container.decodeIfPresent(String.self, forKey: .tag)
        isOrdered = try container.decode(Bool.self, forKey: .isOrdered)
        maximumAge = try container.decodeIfPresent(Duration.self, forKey: .maximumAge).map(QueuedRequest.saturated)
        timeout = try container.decodeIfPresent(Duration.self, forKey: .timeout).map(QueuedRequest.saturated)
        credentialHeaderNames = try container.decodeIfPresent([String].self, forKey: .credentialHeaderNames) ?? []
        let flag = try container.decodeIfPresent(Bool.self, forKey: .hadClientCredentials)
        hadClientCredentials = flag ?? false
        predatesCredentialNames = flag == nil
    }

    /// `duration` within `Int64.min`...`Int64.max` seconds. A damaged record may hold a duration of up to
    /// 2^127 attoseconds, whose seconds no `Int64` can hold: reading its components would trap.
    private static func saturated(_ duration: Duration) -> Duration {
        min(max(duration, .seconds(Int64.min)), .seconds(Int64.max))
    }

    private enum CodingKeys: String, CodingKey {
        case method, url, headers, body, idempotencyKey, tag, isOrdered, maximumAge, timeout, credentialHeaderNames, hadClientCredentials
    }

    /// The header that carries ``idempotencyKey``.
    public static let idempotencyKeyHeader = "Idempotency-Key"

    /// The origin (scheme, host and port) the request goes to; ordering is per origin.
    public var origin: String { RedirectStateMachine.origin(of: url) }

    /// The request to send, its body read from memory or from its file, with the credential
    /// headers of `credentials` added back. Its credential names count as sensitive, so that a
    /// redirect to another origin drops them and logs hide them.
    func httpRequest(
        maximumBodySize: Int, defaultTimeout: Duration?, credentials: CredentialResolution, sensitiveHeaders: Set<String>
    ) throws(CourierError) -> CourierHTTPRequest {
        var headers = headers
        for field in credentials.supplied { headers.add(name: field.name, value: field.value) }
        headers.set(name: QueuedRequest.idempotencyKeyHeader, value: idempotencyKey)
        var requestBody: CourierRequestBody?
        switch body {
        case .data(let data):
            requestBody = .data(data, contentType: nil)
        case .file(let path):
            // Read piece by piece while it is sent; a transport that sends files itself (an
            // upload task of a background session) is handed the file.
            do {
                requestBody = try .file(URL(fileURLWithPath: path), contentType: nil)
            } catch {
                throw CourierError(.invalidBody, error.message + " It is the body of a queued request: put it back, or drop the record.", url: url)
            }
        case nil:
            requestBody = nil
        }
        var request = CourierHTTPRequest(
            method: method, url: url, headers: headers, body: requestBody, timeout: timeout ?? defaultTimeout,
            sensitiveHeaders: sensitiveHeaders.union(credentialHeaderNames.map { $0.lowercased() }), maximumBodySize: maximumBodySize
        )
        request.usesClientCredentials = credentials.usesClientCredentials
        // The cache files answers under the client's credentials for the origin; a request
        // sent without them keeps out of it.
        if !credentials.usesClientCredentials { request.cachePolicy = .noStore }
        return request
    }
}

extension CourierClient {
    /// Resolves `request` like ``send(_:)-(CourierRequest<Value>)`` would, into a value the queue can
    /// keep, and the lower-cased names of its sensitive headers (the request's and the
    /// client's). A streamed body cannot be kept: give the bytes, or a file with
    /// ``QueuedRequest/Body/file(path:)``.
    package func queuedRequest<Value>(
        _ request: CourierRequest<Value>, tag: String?, isOrdered: Bool, maximumAge: Duration?
    ) throws(CourierError) -> (request: QueuedRequest, sensitiveHeaders: Set<String>) {
        guard request.credential == nil else {
            // A credential of the request alone would have to be kept on disk to be used later.
            throw CourierError(
                .invalidBody,
                "A durable request cannot carry CourierRequest.credential, which would have to be stored; give the credentials to the client (ClientConfiguration.authentication) or the queue (QueueConfiguration.credentials) instead."
            )
        }
        guard request.connection.isEmpty else {
            // A TLS policy or a proxy holds keys and credentials that would have to be kept on
            // disk; sent without them, the request would connect in a way it did not ask for.
            throw CourierError(
                .invalidConfiguration,
                "A durable request cannot carry CourierRequest.connection, which the queue does not keep; give these settings to the client that delivers it (ClientConfiguration.transport) instead."
            )
        }
        let resolved = try makeHTTPRequest(request, id: CourierRequestID())
        var body: QueuedRequest.Body?
        if let resolvedBody = resolved.body {
            guard let bytes = resolvedBody.bytes else {
                throw CourierError(
                    .invalidBody,
                    "A durable request cannot keep a streamed body; pass the bytes, or enqueue a QueuedRequest whose body is a file.",
                    url: resolved.url
                )
            }
            body = .data(bytes)
        }
        let queued = QueuedRequest(
            method: resolved.method, url: resolved.url, headers: resolved.headers, body: body, tag: tag,
            isOrdered: isOrdered, maximumAge: maximumAge, timeout: request.timeout
        )
        return (queued, resolved.sensitiveHeaders)
    }
}
