import Courier
import Foundation

/// Supplies the credentials of durable requests when they are delivered, so that none is ever
/// written to the queue's database.
///
/// When a request is enqueued, its credential headers are taken out and only their names are
/// kept (``QueuedRequest/credentialHeaderNames``). At delivery the queue that enqueued it
/// still holds their values while it stays open; a queue opened later, in this process or
/// another one, asks its ``QueueConfiguration/credentials`` for the ones it lacks. An
/// `Authorization` may also come from the delivering client's
/// ``ClientConfiguration/authentication`` for the request's origin, which the queue prefers
/// and does not ask for.
///
/// ```swift
/// var configuration = QueueConfiguration(path: outboxPath)
/// configuration.credentials = QueueCredentials { request, names in
///     guard request.url.host == "api.example.com" else { return Headers() }
///     return ["Authorization": "Bearer " + (try await session.currentToken())]
/// }
/// ```
public protocol QueueCredentialSource: Sendable {
    /// The values of the credential headers `names` for `request`, just before it is sent.
    ///
    /// Return the fields you have; only those named in `names` are used, and a request still
    /// missing one waits (see ``QueueEvent/needsCredentials(_:missing:)``) instead of being sent
    /// without it. An error thrown here makes the request wait too, its message kept in the
    /// record's ``QueueRecord/outcome``.
    ///
    /// - Parameters:
    ///   - request: the request as the queue keeps it, without its credential headers.
    ///   - names: the names of the headers it lacks, as they were enqueued.
    func credentials(for request: QueuedRequest, named names: [String]) async throws -> Headers
}

/// A ``QueueCredentialSource`` made of a closure, or of fixed headers for one origin.
public struct QueueCredentials: QueueCredentialSource {
    private let provide: @Sendable (QueuedRequest, [String]) async throws -> Headers

    /// A source that asks `provide` with the request and the names of the headers it lacks.
    public init(_ provide: @escaping @Sendable (_ request: QueuedRequest, _ names: [String]) async throws -> Headers) {
        self.provide = provide
    }

    /// A source that gives `headers` to requests for the origin (scheme, host and port) of
    /// `origin`, and nothing to requests for any other origin.
    public static func headers(_ headers: Headers, for origin: URL) -> QueueCredentials {
        let origin = RedirectStateMachine.origin(of: origin)
        return QueueCredentials { request, _ in request.origin == origin ? headers : Headers() }
    }

    /// What the closure, or the fixed headers, give for `request`.
    public func credentials(for request: QueuedRequest, named names: [String]) async throws -> Headers {
        try await provide(request, names)
    }
}
