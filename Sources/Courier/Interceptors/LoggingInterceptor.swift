import Foundation
import Logging

/// Logs each request and its outcome through swift-log, with credentials redacted.
///
/// It logs one line when the request goes down and one when the response (or error) comes
/// back, at `level`, with the method, URL, status and duration as metadata; headers are logged
/// at `trace` level, with the values of ``Headers/alwaysRedacted`` headers and of the
/// request's ``CourierHTTPRequest/sensitiveHeaders`` (which include
/// ``ClientConfiguration/sensitiveHeaders``) replaced by `<redacted>`. Cookies the jar adds and
/// credentials the client adds come later in the pipeline and are not part of these lines;
/// the client's own trace lines show each message as sent, redacted the same way.
public struct LoggingInterceptor: Interceptor {
    private let logger: Logger
    private let level: Logger.Level

    /// Creates an interceptor that logs to `logger` at `level`.
    public init(logger: Logger, level: Logger.Level = .debug) {
        self.logger = logger
        self.level = level
    }

    public func intercept(_ request: CourierHTTPRequest, next: Next) async throws -> CourierResponse {
        let start = ContinuousClock.now
        var metadata: Logger.Metadata = [
            "courier.request": "\(request.id)",
            "courier.method": "\(request.method)",
            "courier.url": "\(request.url.absoluteString)",
        ]
        logger.log(level: level, "request", metadata: metadata)
        logger.trace("request headers", metadata: metadata.merging(["courier.headers": "\(request.redactedHeaders.pairs)"]) { $1 })
        do {
            let response = try await next(request)
            metadata["courier.status"] = "\(response.status)"
            metadata["courier.duration"] = "\(ContinuousClock.now - start)"
            logger.log(level: level, "response", metadata: metadata)
            return response
        } catch {
            metadata["courier.error"] = "\(error)"
            metadata["courier.duration"] = "\(ContinuousClock.now - start)"
            logger.log(level: level, "request failed", metadata: metadata)
            throw error
        }
    }
}
