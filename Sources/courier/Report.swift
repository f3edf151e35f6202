import Courier
import Foundation

/// The `--report json` line: one JSON object per delivered response, keys in this order:
/// `status`, `headers` (pairs in received order), `body_base64`, `url`, `redirects`, `source`,
/// `trailers` (pairs in received order, empty when none came).
/// `courier batch` puts `index` (the request's position in the file) first, and reports a
/// failure as `index`, `url` and `error` (`kind`, `message`).
enum Report {
    static func jsonLine(for response: CourierResponse, index: Int? = nil) -> String {
        var text = "{" + (index.map { "\"index\":\($0)," } ?? "")
        text += "\"status\":\(response.status),\"headers\":["
        text += response.headers.map { "[\(quote($0.name)),\(quote($0.value))]" }.joined(separator: ",")
        text += "],\"body_base64\":\(quote(response.body.base64EncodedString()))"
        text += ",\"url\":\(quote(response.url.absoluteString))"
        text += ",\"redirects\":\(response.redirects.count)"
        text += ",\"source\":\(quote(response.source.rawValue))"
        text += ",\"trailers\":[" + response.trailers.map { "[\(quote($0.name)),\(quote($0.value))]" }.joined(separator: ",") + "]}"
        return text
    }

    /// A failed request's line: `kind` is the library's machine-readable name, `message` the
    /// sentence the error line prints.
    static func jsonLine(forFailure error: any Error, index: Int, url: String) -> String {
        let kind = (error as? CourierError)?.kind.description ?? "failure"
        return "{\"index\":\(index),\"url\":\(quote(url)),\"error\":{\"kind\":\(quote(kind)),\"message\":\(quote(CommandFailure(describing: error).message))}}"
    }

    /// A JSON string literal (RFC 8259 §7).
    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                // Every control and bidirectional character as \uXXXX: valid JSON that is
                // also safe to print (all of them are below U+FFFF).
                if PrintableText.needsEscaping(scalar) {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
