// The names these types had before 0.3.0, when a program imported Courier beside Vapor, Fluent, Hummingbird,
// NIOHTTP1, swift-http-types, gRPC or an OpenAPI transport and a bare `Client`, `Request`,
// `HTTPMethod` or `RetryPolicy` could mean either.
//
// By default each old name is unavailable: the compiler ignores it when another module declares
// the same name (so no import makes a name ambiguous), and where only Courier declares it, the
// error names the new type and offers the rename as a fix-it. A package that wants time to
// migrate enables the `DeprecatedNames` trait, which turns them into deprecated aliases: old code
// builds with warnings, and the bare names clash again with those modules until it is migrated.

#if DeprecatedNames
/// The earlier name of ``CourierClient``.
@available(*, deprecated, renamed: "CourierClient")
public typealias Client = CourierClient
/// The earlier name of ``CourierRequest``.
@available(*, deprecated, renamed: "CourierRequest")
public typealias Request = CourierRequest
/// The earlier name of ``CourierResponse``.
@available(*, deprecated, renamed: "CourierResponse")
public typealias Response = CourierResponse
/// The earlier name of ``CourierHTTPRequest``.
@available(*, deprecated, renamed: "CourierHTTPRequest")
public typealias HTTPRequest = CourierHTTPRequest
/// The earlier name of ``CourierHTTPMethod``.
@available(*, deprecated, renamed: "CourierHTTPMethod")
public typealias HTTPMethod = CourierHTTPMethod
/// The earlier name of ``CourierRequestBody``.
@available(*, deprecated, renamed: "CourierRequestBody")
public typealias RequestBody = CourierRequestBody
/// The earlier name of ``CourierRequestID``.
@available(*, deprecated, renamed: "CourierRequestID")
public typealias RequestID = CourierRequestID
/// The earlier name of ``CourierCookie``.
@available(*, deprecated, renamed: "CourierCookie")
public typealias Cookie = CourierCookie
/// The earlier name of ``CourierParameters``.
@available(*, deprecated, renamed: "CourierParameters")
public typealias Parameters = CourierParameters
/// The earlier name of ``CourierEndpoint``.
@available(*, deprecated, renamed: "CourierEndpoint")
public typealias Endpoint = CourierEndpoint
/// The earlier name of ``CourierRetryPolicy``.
@available(*, deprecated, renamed: "CourierRetryPolicy")
public typealias RetryPolicy = CourierRetryPolicy
/// The earlier name of ``CourierCacheEntry``.
@available(*, deprecated, renamed: "CourierCacheEntry")
public typealias CacheEntry = CourierCacheEntry
/// The earlier name of ``CourierAsyncHTTPClientTransport``.
@available(*, deprecated, renamed: "CourierAsyncHTTPClientTransport")
public typealias AsyncHTTPClientTransport = CourierAsyncHTTPClientTransport
#else
/// The earlier name of ``CourierClient``.
@available(*, unavailable, renamed: "CourierClient")
public typealias Client = CourierClient
/// The earlier name of ``CourierRequest``.
@available(*, unavailable, renamed: "CourierRequest")
public typealias Request = CourierRequest
/// The earlier name of ``CourierResponse``.
@available(*, unavailable, renamed: "CourierResponse")
public typealias Response = CourierResponse
/// The earlier name of ``CourierHTTPRequest``.
@available(*, unavailable, renamed: "CourierHTTPRequest")
public typealias HTTPRequest = CourierHTTPRequest
/// The earlier name of ``CourierHTTPMethod``.
@available(*, unavailable, renamed: "CourierHTTPMethod")
public typealias HTTPMethod = CourierHTTPMethod
/// The earlier name of ``CourierRequestBody``.
@available(*, unavailable, renamed: "CourierRequestBody")
public typealias RequestBody = CourierRequestBody
/// The earlier name of ``CourierRequestID``.
@available(*, unavailable, renamed: "CourierRequestID")
public typealias RequestID = CourierRequestID
/// The earlier name of ``CourierCookie``.
@available(*, unavailable, renamed: "CourierCookie")
public typealias Cookie = CourierCookie
/// The earlier name of ``CourierParameters``.
@available(*, unavailable, renamed: "CourierParameters")
public typealias Parameters = CourierParameters
/// The earlier name of ``CourierEndpoint``.
@available(*, unavailable, renamed: "CourierEndpoint")
public typealias Endpoint = CourierEndpoint
/// The earlier name of ``CourierRetryPolicy``.
@available(*, unavailable, renamed: "CourierRetryPolicy")
public typealias RetryPolicy = CourierRetryPolicy
/// The earlier name of ``CourierCacheEntry``.
@available(*, unavailable, renamed: "CourierCacheEntry")
public typealias CacheEntry = CourierCacheEntry
/// The earlier name of ``CourierAsyncHTTPClientTransport``.
@available(*, unavailable, renamed: "CourierAsyncHTTPClientTransport")
public typealias AsyncHTTPClientTransport = CourierAsyncHTTPClientTransport
#endif
