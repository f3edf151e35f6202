import Foundation

/// What a request sent with ``CourierClient/perform(request:body:options:responseHandler:)``
/// asks of Courier beyond its swift-http-types head: the settings a ``CourierRequest`` carries
/// itself, each defaulting to the client's.
///
/// It plays the part of the request options of Swift's proposed standard HTTP client API
/// (apple/swift-http-api-proposal), with Courier's own capabilities as its members.
///
/// ```swift
/// var options = CourierRequestOptions()
/// options.timeout = .seconds(10)
/// options.priority = .high
/// options.retryPolicy = .retries(2)
/// ```
public struct CourierRequestOptions: Sendable {
    /// The whole call's time limit, every attempt, redirect and wait included; `nil` uses the
    /// client's ``ClientConfiguration/timeouts``.
    public var timeout: Duration?
    /// The scheduling priority.
    public var priority: RequestPriority = .default
    /// How the request uses the HTTP cache.
    public var cachePolicy: CachePolicy = .default
    /// The application's cache rules for this request; they override the client's
    /// ``CacheConfiguration/policy`` field by field.
    public var appCachePolicy: AppCachePolicy?
    /// When the request is sent again after a failure; `nil` uses the client's policy.
    public var retryPolicy: CourierRetryPolicy?
    /// How redirects are followed; `nil` uses the client's ``ClientConfiguration/redirectPolicy``.
    public var redirectPolicy: RedirectPolicy?
    /// A credential for this request alone, sent to the origin of its URL instead of the
    /// client's ``ClientConfiguration/authentication``; `nil` uses the client's.
    public var credential: Credential?
    /// The request's own connection settings (TLS, HTTP version, decompression…).
    public var connection = ConnectionOverrides()
    /// Names of extra header fields to treat as credentials: removed on cross-origin
    /// redirects and redacted in logs, like `Authorization`.
    public var sensitiveHeaders: Set<String> = []
    /// The largest response body kept in the HTTP cache for this request; `nil` uses the
    /// client's ``Limits/maximumBodySize``. The body handed to the response handler is read as
    /// it arrives and has no limit of its own.
    public var maximumBodySize: Int?
    /// A number you choose to tell requests apart.
    public var tag: Int?
    /// Free-form information carried to interceptors and event hooks.
    public var userInfo: [String: String] = [:]

    /// Options that leave every setting to the client.
    public init() {}
}
