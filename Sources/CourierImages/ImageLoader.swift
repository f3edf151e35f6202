import Courier
import Foundation

/// Loads images through a ``Courier/CourierClient``, decoded and scaled down away from the
/// caller's actor, so that a list of thumbnails neither blocks the main actor nor holds
/// full-size bitmaps.
///
/// ```swift
/// let images = ImageLoader(client: client)
/// let thumbnail = try await images.image(at: "/photos/42.jpg", maxPixelSize: 240)
/// print(thumbnail.width, thumbnail.height)  // at most 240 on the longest side
/// ```
///
/// The bytes come through the client's one request path: its cache (images without a
/// freshness of their own are kept for ``Courier/AppCachePolicy/imageFreshness``),
/// authentication, redirects, retries and limits. Loads of the same image at the same size
/// while one is in flight share its request and its decode: each caller gets the result, and
/// a caller that is cancelled leaves the others waiting; the request is cancelled when no
/// caller waits any more. Two loads are the same when both are GETs with no body, no
/// parameters and no credential of their own, with the same path, query, headers, cache
/// policies, timeout and body limit, and neither turns `allowsCoalescing` off; the first
/// caller's validators and retry policy are the ones that run.
///
/// Decoding is ImageIO's on Apple platforms (every format the system reads) and libpng's and
/// libjpeg's elsewhere (PNG and JPEG); see ``CourierImage``.
public actor ImageLoader {
    /// The client the bytes come through.
    public nonisolated let client: CourierClient
    /// The limits every decode is held to.
    public nonisolated let limits: Limits

    private var flights: [Key: Flight] = [:]
    private var lastID: UInt64 = 0

    /// Creates a loader that fetches through `client`.
    public init(client: CourierClient, limits: Limits = Limits()) {
        self.client = client
        self.limits = limits
    }

    /// Loads the image at `path` (joined to the client's base URL like any request's path) so
    /// that its longest side is at most `maxPixelSize` pixels; a smaller image keeps its size.
    ///
    /// - Throws: `CourierError` of kind `decodingFailed` when the body is not an image this
    ///   platform decodes, is damaged, or is larger than ``limits`` (its `underlyingError` is an
    ///   ``ImageDecodingError``); `invalidConfiguration` when `maxPixelSize` is less than 1; and
    ///   the client's errors for the request itself.
    public func image(at path: String, maxPixelSize: Int) async throws -> CourierImage {
        try await image(for: CourierRequest<Data>(path: path), maxPixelSize: maxPixelSize)
    }

    /// Sends `request` and decodes its body so that the image's longest side is at most
    /// `maxPixelSize` pixels; a smaller image keeps its size.
    ///
    /// - Throws: as ``image(at:maxPixelSize:)``.
    public func image(for request: CourierRequest<Data>, maxPixelSize: Int) async throws -> CourierImage {
        try Self.check(maxPixelSize)
        guard let key = Key(request, maxPixelSize: maxPixelSize) else {
            return try await Self.load(request, client: client, maxPixelSize: maxPixelSize, limits: limits)
        }
        let flight = flights[key] ?? start(request, key: key)
        lastID += 1
        let waiter = lastID
        let flightID = flight.id
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if let result = flight.result {
                    continuation.resume(with: result)
                } else if Task.isCancelled || flights[key]?.id != flightID {
                    continuation.resume(throwing: Self.cancelled(request))
                } else {
                    flight.waiters[waiter] = continuation
                }
            }
        } onCancel: {
            Task { await self.leave(waiter, key: key, flightID: flightID) }
        }
    }

    /// Decodes `data` so that the image's longest side is at most `maxPixelSize` pixels, away
    /// from the caller's actor. For bytes you already have; ``image(at:maxPixelSize:)`` fetches
    /// them.
    ///
    /// - Throws: `CourierError` of kind `decodingFailed` (with an ``ImageDecodingError``) or
    ///   `invalidConfiguration`, as ``image(at:maxPixelSize:)``.
    @concurrent
    public static func image(from data: Data, maxPixelSize: Int, limits: Limits = Limits()) async throws(CourierError) -> CourierImage {
        try check(maxPixelSize)
        do {
            return try ImageDecoder.decode(data, maxPixelSize: maxPixelSize, limits: limits)
        } catch {
            throw CourierError(.decodingFailed, "The data could not be decoded as an image: \(error.message)", underlyingError: error)
        }
    }

    /// How many callers wait on a load in flight, and how many loads are in flight.
    var waiting: (callers: Int, loads: Int) {
        (flights.values.reduce(0) { $0 + $1.waiters.count }, flights.count)
    }

    private func start(_ request: CourierRequest<Data>, key: Key) -> Flight {
        lastID += 1
        let flight = Flight(id: lastID)
        let flightID = flight.id
        flights[key] = flight
        flight.task = Task { [client, limits] in
            let result: Result<CourierImage, any Error>
            do {
                result = .success(try await Self.load(request, client: client, maxPixelSize: key.maxPixelSize, limits: limits))
            } catch {
                result = .failure(error)
            }
            self.land(result, key: key, flightID: flightID)
        }
        return flight
    }

    private func land(_ result: Result<CourierImage, any Error>, key: Key, flightID: UInt64) {
        guard let flight = flights[key], flight.id == flightID else { return }
        flights[key] = nil
        flight.result = result
        let waiters = flight.waiters.values
        flight.waiters = [:]
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func leave(_ waiter: UInt64, key: Key, flightID: UInt64) {
        guard let flight = flights[key], flight.id == flightID,
            let continuation = flight.waiters.removeValue(forKey: waiter)
        else { return }
        continuation.resume(throwing: CourierError(.cancelled, "The image load was cancelled."))
        if flight.waiters.isEmpty {
            flights[key] = nil
            flight.task?.cancel()
        }
    }

    /// Fetches and decodes, away from any actor.
    @concurrent
    private static func load(_ request: CourierRequest<Data>, client: CourierClient, maxPixelSize: Int, limits: Limits) async throws -> CourierImage {
        let response = try await client.response(for: request)
        do {
            return try ImageDecoder.decode(response.body, maxPixelSize: maxPixelSize, limits: limits)
        } catch {
            throw CourierError(
                .decodingFailed, "The body could not be decoded as an image: \(error.message)",
                url: response.url, response: response, underlyingError: error
            )
        }
    }

    private static func check(_ maxPixelSize: Int) throws(CourierError) {
        guard maxPixelSize >= 1 else {
            throw CourierError(.invalidConfiguration, "maxPixelSize is \(maxPixelSize); give 1 or more (the longest side of the result, in pixels).")
        }
    }

    private static func cancelled(_ request: CourierRequest<Data>) -> CourierError {
        CourierError(.cancelled, "The image load of \(request.path) was cancelled.")
    }
}

extension ImageLoader {
    /// One load in flight, shared by the callers that wait for it.
    private final class Flight {
        let id: UInt64
        var waiters: [UInt64: CheckedContinuation<CourierImage, any Error>] = [:]
        var task: Task<Void, Never>?
        var result: Result<CourierImage, any Error>?

        init(id: UInt64) { self.id = id }
    }

    /// What makes two loads the same; `nil` for a request that is not shared.
    struct Key: Hashable, Sendable {
        let path: String
        let usesCDN: Bool
        let query: [URLQueryItem]
        let headers: Headers
        let cachePolicy: CachePolicy
        let appCachePolicy: AppCachePolicy?
        let timeout: Duration?
        let maximumBodySize: Int?
        let maxPixelSize: Int

        init?(_ request: CourierRequest<Data>, maxPixelSize: Int) {
            guard request.method == .get, request.body == nil, request.parameters == nil, request.credential == nil,
                request.allowsCoalescing
            else { return nil }
            path = request.path
            usesCDN = request.usesCDN
            query = request.query
            headers = request.headers
            cachePolicy = request.cachePolicy
            appCachePolicy = request.appCachePolicy
            timeout = request.timeout
            maximumBodySize = request.maximumBodySize
            self.maxPixelSize = maxPixelSize
        }
    }
}
