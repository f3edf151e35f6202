import Foundation

extension CourierClient {
    /// Resolves a request against the configuration: URL, parameters, headers, limits.
    ///
    /// - Parameter progress: counts the body's bytes as they are sent; by default, one that
    ///   calls the request's ``CourierRequest/uploadProgress``, if it has one.
    package func makeHTTPRequest<Value>(_ request: CourierRequest<Value>, id: CourierRequestID, progress: ProgressReporter? = nil) throws(CourierError) -> CourierHTTPRequest {
        var base = configuration.baseURL
        if request.usesCDN {
            guard let cdn = configuration.cdnURL else {
                throw CourierError(.invalidURL, "The request asks for the CDN but ClientConfiguration.cdnURL is not set; set it or clear CourierRequest.usesCDN.")
            }
            base = cdn
        }
        var queryPairs = request.query.map { ($0.name, $0.value) }
        var body = request.body
        if let parameters = request.parameters, !parameters.isEmpty {
            let encoding: BodyEncoding?
            switch request.parameterEncoding {
            case .automatic: encoding = request.method.encodesParametersInQuery ? nil : configuration.defaultBodyEncoding
            case .query: encoding = nil
            case .body(let chosen): encoding = chosen
            }
            if let encoding {
                guard body == nil else {
                    throw CourierError(.invalidBody, "The request has both a body and body parameters; put the parameters in the query (parameterEncoding = .query) or drop the body.")
                }
                body = try CourierRequestBody.encoding(parameters, as: encoding)
            } else {
                queryPairs += parameters.flattenedPairs.map { ($0.0, Optional($0.1)) }
            }
        }
        body?.progressReporter = progress ?? request.uploadProgress.map { ProgressReporter(callback: $0) }
        let url = try urls.url(path: request.path, base: base, queryPairs: queryPairs)
        var headers = request.headers
        let decompresses: Bool
        if case .enabled = request.connection.decompression ?? configuration.decompression { decompresses = true } else { decompresses = false }
        // Room for every field that may be added here, made at once rather than grown.
        let mayAdd = configuration.defaultHeaders.count + (body?.contentType == nil ? 0 : 1) + (decompresses ? 1 : 0)
        if mayAdd > 0 { headers.reserveCapacity(headers.count + mayAdd) }
        headers.addMissing(from: configuration.defaultHeaders)
        if let contentType = body?.contentType, !headers.contains("Content-Type") {
            headers.add(name: "Content-Type", value: contentType)
        }
        if decompresses, !headers.contains("Accept-Encoding") {
            headers.add(name: "Accept-Encoding", value: Decompression.acceptEncoding)
        }
        var built = CourierHTTPRequest(
            method: request.method,
            url: url,
            headers: headers,
            body: body,
            timeout: request.timeout ?? configuration.timeouts.total,
            priority: request.priority,
            cachePolicy: request.cachePolicy,
            appCachePolicy: request.appCachePolicy,
            sensitiveHeaders: request.sensitiveHeaders.isEmpty && configuration.sensitiveHeaders.isEmpty
                ? [] : Set((request.sensitiveHeaders.union(configuration.sensitiveHeaders)).map { $0.lowercased() }),
            maximumBodySize: request.maximumBodySize ?? configuration.limits.maximumBodySize,
            tag: request.tag,
            userInfo: request.userInfo,
            id: id
        )
        built.connection = request.connection
        built.allowsCoalescing = request.allowsCoalescing
        built.redirectPolicy = request.redirectPolicy
        if let credential = request.credential {
            built.authenticator = Authenticator(credential: credential, origin: url, logger: configuration.logger)
        }
        return built
    }
}
