import Courier
import Foundation
import NIOConcurrencyHelpers

/// `--verbose`: prints every message on the wire, curl-style, on stderr: `> ` before the
/// request line and headers, `< ` before the status line and headers, with
/// `Authorization`, `Cookie`, `Set-Cookie`, `Proxy-Authorization` and sensitive headers
/// redacted.
///
/// The request line ends with the version of HTTP it went over. Over plain HTTP that is
/// HTTP/1.1, known before sending. Over TLS the server chooses while the connection is set up
/// (HTTP/2 or HTTP/1.1), so the request's lines wait for the response head and are printed
/// just before it, with the version it arrived over; a request that gets no response is
/// printed without a version, since which one it went over is not known.
final class VerboseLog: RequestObserver {
    private let output: Output
    /// The lines of a request whose version is not known yet (one sent over TLS whose response
    /// head has not arrived): its request line without the version, then its header lines.
    private let waiting = NIOLockedValueBox<(requestLine: String, headers: [String])?>(nil)

    init(output: Output) {
        self.output = output
    }

    func exchangeWillSend(_ event: ExchangeEvent) {
        printWaitingRequest(version: nil)
        let url = event.request.url
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        let requestLine = "> \(event.request.method) \(target)"
        var headers: [String] = []
        if !event.request.headers.contains("Host"), let host = url.host(percentEncoded: true) {
            headers.append("> Host: \(host)\(url.port.map { ":\($0)" } ?? "")")
        }
        headers += event.redactedRequestHeaders.map { "> \($0.name): \($0.value)" }
        headers.append(">")
        waiting.withLockedValue { $0 = (requestLine, headers) }
        if url.scheme?.lowercased() != "https" { printWaitingRequest(version: .http11) }
    }

    func exchangeDidReceive(_ event: ExchangeEvent) {
        let version = event.protocolVersion ?? .http11
        printWaitingRequest(version: version)
        var lines = ["< " + HeadText.statusLine(version, status: event.status ?? 0, reasonPhrase: event.reasonPhrase ?? "")]
        lines += event.redactedResponseHeaders.map { "< \($0.name): \($0.value)" }
        lines.append("<")
        for line in lines { output.error(line) }
    }

    func requestWillRetry(_ event: RequestEvent) {
        printWaitingRequest(version: nil)
    }

    func requestDidStop(_ event: RequestEvent) {
        printWaitingRequest(version: nil)
    }

    /// Prints the request still waiting for its response head, if there is one, with
    /// `version` at the end of its request line (none when `nil`).
    private func printWaitingRequest(version: CourierResponse.ProtocolVersion?) {
        let request = waiting.withLockedValue { waiting in
            defer { waiting = nil }
            return waiting
        }
        guard let request else { return }
        let requestLine = request.requestLine + (version.map { " \($0)" } ?? "")
        for line in [requestLine] + request.headers { output.error(line) }
    }
}
