import ArgumentParser
import Courier
import Foundation

/// What `fetch` changes in what it prints on stdout: nothing unless stdout is a terminal; there,
/// by default, JSON bodies indented and coloured and the `-i` head coloured.
///
/// Colours are left out when `NO_COLOR` is set to anything but the empty string
/// (https://no-color.org) or `TERM` is `dumb`, unless `--pretty all` or `--pretty colors` asks
/// for them. Only bodies of a JSON media type (`application/json`, `…+json`) of at most
/// ``maximumBodyBytes`` are laid out, and only when they are valid JSON; anything else is
/// printed as received.
struct TerminalStyle: Sendable {
    /// Whether JSON bodies are indented.
    var indentsJSON = false
    /// Whether the head and JSON bodies are coloured.
    var colors = false

    /// The choices of `fetch --pretty`, HTTPie's.
    enum Pretty: String, CaseIterable, ExpressibleByArgument {
        /// JSON bodies indented and coloured, the `-i` head coloured.
        case all
        /// Colours only: the body's layout is kept as sent.
        case colors
        /// JSON bodies indented, without colours.
        case format
        /// Everything as received.
        case none
    }

    /// The largest body laid out; a larger one is printed as received.
    static let maximumBodyBytes = 8 << 20

    /// Prints everything as received.
    static let asReceived = TerminalStyle()

    /// The style for `pretty` on `output`, under `environment` (`NO_COLOR`, `TERM`).
    init(pretty: Pretty?, output: Output, environment: [String: String]) {
        guard output.standardOutputIsTerminal else { return }
        let colorsWanted = environment["NO_COLOR", default: ""].isEmpty && environment["TERM"] != "dumb"
        switch pretty {
        case nil: (indentsJSON, colors) = (true, colorsWanted)
        case .some(.all): (indentsJSON, colors) = (true, true)
        case .some(.colors): colors = true
        case .some(.format): indentsJSON = true
        case .some(.none): break
        }
    }

    /// The style of the command running now: its `--pretty`, the current output and
    /// environment.
    init(pretty: Pretty?, output: Output) {
        self.init(pretty: pretty, output: output, environment: CourierCLI.environment ?? ProcessInfo.processInfo.environment)
    }

    private init() {}

    /// Whether a body of `mediaType` may be laid out: it is JSON, and there is a change to make.
    func laysOut(mediaType: String?) -> Bool {
        guard indentsJSON || colors, let mediaType else { return false }
        return mediaType == "application/json" || mediaType.hasSuffix("+json")
    }

    /// `body` as it is shown: laid out when it is JSON of at most ``maximumBodyBytes``, else
    /// unchanged.
    func body(_ body: Data, mediaType: String?) -> Data {
        guard laysOut(mediaType: mediaType), body.count <= Self.maximumBodyBytes,
            let styled = JSONPrettyPrinter.styled([UInt8](body), indenting: indentsJSON, colors: colors)
        else { return body }
        return Data(styled)
    }

    /// The status line and header fields, coloured when colours are on.
    func head(_ response: CourierResponse) -> String {
        HeadText.render(response, colors: colors)
    }

    /// The trailer fields that followed a body, as `--include` prints them.
    func trailers(_ trailers: Headers) -> String {
        HeadText.trailers(trailers, colors: colors)
    }
}
