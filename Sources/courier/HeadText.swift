import Courier

/// The status line and header fields of a response as `--include`, `--head` and `--verbose`
/// print them, curl-style: `HTTP/1.1 200 OK`, `HTTP/2 200` (HTTP/2 has no reason phrase).
///
/// Text the server chose is escaped (see `PrintableText`) before any colour is added, so it can
/// never drive the terminal.
enum HeadText {
    /// `HTTP/1.1 200 OK`, or `HTTP/2 200`; the reason phrase escaped.
    static func statusLine(_ version: CourierResponse.ProtocolVersion, status: Int, reasonPhrase: String, colors: Bool = false) -> String {
        let code = String(status)
        // HTTP/2 and later carry no reason phrase; curl prints none.
        let reason = version.major >= 2 ? "" : " " + PrintableText.escaping(reasonPhrase)
        guard colors else { return "\(version) \(code)\(reason)" }
        return TerminalColors.paint(version.description, TerminalColors.version) + " "
            + TerminalColors.paint(code + reason, TerminalColors.status(status))
    }

    /// The status line and header fields, each ending in CRLF, then an empty line; with
    /// `colors`, the status and the field names coloured.
    static func render(_ response: CourierResponse, colors: Bool = false) -> String {
        let head = statusLine(response.protocolVersion, status: response.status, reasonPhrase: response.reasonPhrase, colors: colors) + "\r\n"
        return head + fields(response.headers, colors: colors) + "\r\n"
    }

    /// The trailer fields that followed a body, as `--include` prints them after it, each
    /// ending in CRLF; nothing when there are none.
    static func trailers(_ trailers: Headers, colors: Bool = false) -> String {
        fields(trailers, colors: colors)
    }

    /// `Name: value` lines, escaped, each ending in CRLF.
    private static func fields(_ fields: Headers, colors: Bool) -> String {
        var text = ""
        for field in fields {
            let name = PrintableText.escaping(field.name)
            let value = PrintableText.escaping(field.value)
            text += (colors ? TerminalColors.paint(name, TerminalColors.fieldName) : name) + ": " + value + "\r\n"
        }
        return text
    }
}
