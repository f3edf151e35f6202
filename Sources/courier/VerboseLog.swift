import Courier
import Foundation

/// `--verbose`: prints every message on the wire, curl-style, on stderr: `> ` before the
/// request line and headers, `< ` before the status line and headers, with
/// `Authorization`, `Cookie`, `Set-Cookie`, `Proxy-Authorization` and sensitive headers
/// redacted.
struct VerboseLog: RequestObserver {
    let output: Output

    func exchangeWillSend(_ event: ExchangeEvent) {
        let url = event.request.url
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        var lines = ["> \(event.request.method) \(target) HTTP/1.1"]
        if !event.request.headers.contains("Host"), let host = url.host(percentEncoded: true) {
            lines.append("> Host: \(host)\(url.port.map { ":\($0)" } ?? "")")
        }
        lines += event.redactedRequestHeaders.map { "> \($0.name): \($0.value)" }
        lines.append(">")
        for line in lines { output.error(line) }
    }

    func exchangeDidReceive(_ event: ExchangeEvent) {
        let version = event.protocolVersion ?? .http11
        var lines = ["< " + HeadText.statusLine(version, status: event.status ?? 0, reasonPhrase: event.reasonPhrase ?? "")]
        lines += event.redactedResponseHeaders.map { "< \($0.name): \($0.value)" }
        lines.append("<")
        for line in lines { output.error(line) }
    }
}
