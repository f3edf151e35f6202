import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CourierURLSessionTransport {
    /// The request for URLSession, and the pump of its body when the body is streamed; without
    /// the body when `sendsBody` is `false` (an upload task sends it from its file).
    func makeURLRequest(_ request: CourierHTTPRequest, sendsBody: Bool = true) throws(CourierError) -> (URLRequest, BodyPump?) {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https", request.url.host != nil else {
            throw CourierError(.invalidURL, "The URL \(request.url.absoluteString) cannot be sent; use an absolute http or https URL.", url: request.url)
        }
        try CourierURLSessionTransport.refuseUnsupported(request.connection, url: request.url)
        #if canImport(FoundationNetworking)
        // Nothing of the response arrives while the body stream waits for a piece.
        let refusesDuplex = true
        #else
        let refusesDuplex = false
        #endif
        if refusesDuplex, request.body?.isDuplex == true {
            throw CourierError(
                .invalidConfiguration,
                "The request body is full duplex (CourierRequestBody.isDuplex), and URLSession on \(CourierURLSessionTransport.platformName) hands over nothing of the response while the body waits for its next piece; use the default transport, which sends both ways at once.",
                url: request.url
            )
        }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        switch request.connection.readTimeout {
        case nil: urlRequest.timeoutInterval = CourierURLSessionTransport.seconds(readTimeout)
        case .unlimited?: urlRequest.timeoutInterval = CourierURLSessionTransport.seconds(nil)
        case .after(let read)?: urlRequest.timeoutInterval = CourierURLSessionTransport.seconds(read)
        }
        urlRequest.httpShouldHandleCookies = false
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        for field in request.headers where !CourierURLSessionTransport.framingFields.contains(field.name.lowercased()) {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        // URLSession inflates every coding it knows and hides the compressed size, so the
        // decompression ratio Courier promises could not be checked: it asks for the body as
        // it is, unless the request names codings of its own.
        let acceptEncoding = urlRequest.value(forHTTPHeaderField: "Accept-Encoding")
        if acceptEncoding == nil || acceptEncoding == CourierURLSessionTransport.courierAcceptEncoding {
            urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        var upload: BodyPump?
        if let body = request.body {
            if !sendsBody {
                // The task sends the body from its file itself.
            } else if !body.isStreamed, let data = body.bytes {
                urlRequest.httpBody = data
            } else {
                let pump = BodyPump(body: body, url: request.url)
                urlRequest.httpBodyStream = BodyInputStream(pump: pump)
                upload = pump
            }
            if let type = body.contentType, urlRequest.value(forHTTPHeaderField: "Content-Type") == nil {
                urlRequest.setValue(type, forHTTPHeaderField: "Content-Type")
            }
        }
        return (urlRequest, upload)
    }

    /// The fields that frame the body, which URLSession writes itself: a body in memory goes
    /// with its `Content-Length`, a streamed one chunked. Passing either on would send both.
    static let framingFields: Set<String> = ["content-length", "transfer-encoding"]

    /// The `Accept-Encoding` the client adds when decompression is on.
    static var courierAcceptEncoding: String { Decompression.acceptEncoding }

    /// The header fields of `response`. URLSession joins repeated fields with commas, which
    /// is the same field for all but `Set-Cookie`; those are split back into one field per
    /// cookie.
    static func headers(of response: HTTPURLResponse) -> Headers {
        var fields: [(String, String)] = []
        fields.reserveCapacity(response.allHeaderFields.count)
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            let text = value as? String ?? "\(value)"
            if name.lowercased() == "set-cookie" {
                for cookie in SetCookieSplitter.split(text) { fields.append((name, cookie)) }
            } else {
                fields.append((name, text))
            }
        }
        return Headers(fields)
    }

    /// `duration` in seconds for URLSession, whose timeouts cannot be turned off: no timeout
    /// is a year. FoundationNetworking counts a request's timeout in whole seconds, dropping
    /// the fraction, so there it is rounded up to the next whole second.
    static func seconds(_ duration: Duration?) -> TimeInterval {
        guard let duration, duration > .zero else { return 365 * 24 * 3600 }
        let (seconds, attoseconds) = duration.components
        let exact = min(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18, 365 * 24 * 3600)
        #if canImport(FoundationNetworking)
        return exact.rounded(.up)
        #else
        return exact
        #endif
    }
}
