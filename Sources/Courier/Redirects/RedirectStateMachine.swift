import Foundation

/// Decides, response by response, whether to follow a redirect and what the next request is.
///
/// A pure value: the client feeds it each response's status and `Location`, and it answers
/// with an action. It owns the rules for method rewriting, credential removal, https → http
/// refusal, the redirect limit and loop detection.
package struct RedirectStateMachine {
    enum Action {
        /// Deliver the response as it is.
        case deliver
        /// Send this request next.
        case follow(CourierHTTPRequest)
    }

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]
    /// Headers that describe a body and go when the body goes (Fetch's request-body-header names).
    static let bodyHeaders = ["Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location", "Transfer-Encoding"]

    let policy: RedirectPolicy
    private(set) var hops: [RedirectHop] = []
    private(set) var credentialsRemoved = false
    /// The (method, URL) pairs seen; filled at the first redirect, so that requests that are
    /// not redirected pay nothing for loop detection.
    private var visited: Set<String> = []

    init(policy: RedirectPolicy, request: CourierHTTPRequest) {
        self.policy = policy
    }

    /// Called with each response; returns what to do next.
    mutating func next(status: Int, location: String?, request: CourierHTTPRequest) throws(CourierError) -> Action {
        guard policy.follows, RedirectStateMachine.redirectStatuses.contains(status),
            let location, !location.isEmpty
        else { return .deliver }
        guard hops.count < policy.maximumRedirects else {
            throw CourierError(
                .tooManyRedirects,
                "Gave up after \(hops.count) redirects; raise RedirectPolicy.maximumRedirects if the chain is legitimate.",
                url: request.url
            )
        }
        if visited.isEmpty { visited.insert(RedirectStateMachine.key(request.method, request.url)) }
        let target = try RedirectStateMachine.resolve(location, against: request.url)
        if request.url.scheme?.lowercased() == "https", target.scheme?.lowercased() == "http",
            !policy.allowsInsecureRedirects
        {
            throw CourierError(
                .insecureRedirect,
                "Refused a redirect from https to \(target.absoluteString); it would expose the request in clear text. Set RedirectPolicy.allowsInsecureRedirects to allow it.",
                url: request.url
            )
        }
        var next = request
        next.url = target
        let changesMethod = status == 303 ? request.method != .head : (status == 301 || status == 302) && request.method == .post
        if changesMethod {
            next.method = .get
            next.body = nil
            for name in RedirectStateMachine.bodyHeaders { next.headers.remove(name: name) }
        } else if next.body?.isOneShot == true {
            // The body cannot be written again: the redirect is the answer.
            return .deliver
        }
        if RedirectStateMachine.origin(of: target) != RedirectStateMachine.origin(of: request.url) {
            credentialsRemoved = true
        }
        if credentialsRemoved {
            for field in next.headers where next.isSensitive(field.name) {
                next.headers.remove(name: field.name)
            }
        }
        let key = RedirectStateMachine.key(next.method, target)
        guard visited.insert(key).inserted else {
            throw CourierError(
                .redirectLoop,
                "The redirect to \(target.absoluteString) leads back to a URL already visited in this chain; the server's redirects form a loop.",
                url: request.url
            )
        }
        hops.append(RedirectHop(status: status, from: request.url, to: target))
        return .follow(next)
    }

    /// Resolves a `Location` value against the URL that sent it (RFC 9110 §10.2.2).
    static func resolve(_ location: String, against base: URL) throws(CourierError) -> URL {
        try URLBuilder.rejectControlCharacters(in: location, input: location)
        let encoded = PercentEncoding.encodeKeepingReserved(location, extra: ":/?#[]@")
        guard let resolved = URL(string: encoded, relativeTo: base)?.absoluteURL else {
            throw CourierError(.invalidURL, "The server redirected to \(WireValidation.quoted(location)), which is not a valid URL.", url: base)
        }
        return try URLBuilder.url(path: resolved.absoluteString, base: nil)
    }

    /// Scheme, host and effective port, lower-cased: `https://example.com:443`. Read from the
    /// URL's text in one pass (it runs for every exchange). A host written with percent-escapes
    /// counts as a different origin from its decoded form, which errs on the safe side.
    package static func origin(of url: URL) -> String {
        var text = url.absoluteString
        return text.withUTF8 { bytes -> String? in
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 2 < bytes.count,
                bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
            else { return nil }
            var end = colon + 3
            while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") {
                end += 1
            }
            var hostStart = colon + 3
            if let at = bytes[hostStart..<end].lastIndex(of: UInt8(ascii: "@")) { hostStart = at + 1 }
            let bracket = bytes[hostStart..<end].lastIndex(of: UInt8(ascii: "]")) ?? hostStart
            var hostEnd = end
            var portStart = end
            if let portColon = bytes[bracket..<end].lastIndex(of: UInt8(ascii: ":")) {
                hostEnd = portColon
                portStart = portColon + 1
            }
            let isHTTPS = colon == 5 && zip(bytes[..<colon], "https".utf8).allSatisfy { lowered($0) == $1 }
            // Written straight into the string's storage: one allocation, none when short.
            return String(unsafeUninitializedCapacity: end + 8) { origin in
                var count = 0
                func append(_ byte: UInt8) {
                    origin[count] = byte
                    count += 1
                }
                for byte in bytes[..<colon] { append(lowered(byte)) }
                for byte in "://".utf8 { append(byte) }
                for byte in bytes[hostStart..<hostEnd] { append(lowered(byte)) }
                append(UInt8(ascii: ":"))
                if portStart < end {
                    for byte in bytes[portStart..<end] { append(byte) }
                } else {
                    for byte in (isHTTPS ? "443" : "80").utf8 { append(byte) }
                }
                return count
            }
        } ?? url.absoluteString
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte | 0x20 : byte
    }

    private static func key(_ method: CourierHTTPMethod, _ url: URL) -> String {
        var text = url.absoluteString
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        return method.rawValue + " " + text
    }
}
