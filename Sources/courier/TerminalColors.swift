/// The ANSI colours of terminal output: a select graphic rendition sequence before a piece of
/// text, ``reset`` after it. Only text that is already escaped (see `PrintableText`) or was
/// checked to hold no control character is ever wrapped in them.
enum TerminalColors {
    /// Back to the terminal's own colours.
    static let reset = "\u{1B}[0m"
    /// An object key in JSON: bold blue.
    static let key = "\u{1B}[1;34m"
    /// A string value in JSON: green.
    static let string = "\u{1B}[32m"
    /// A number in JSON: cyan.
    static let number = "\u{1B}[36m"
    /// `true`, `false` and `null` in JSON: magenta.
    static let literal = "\u{1B}[35m"
    /// The protocol version of a status line: blue.
    static let version = "\u{1B}[34m"
    /// A header field's name: cyan.
    static let fieldName = "\u{1B}[36m"

    /// The colour of a status code and its reason phrase: green for 2xx, yellow for 1xx and
    /// 3xx, red for 4xx and 5xx.
    static func status(_ code: Int) -> String {
        switch code {
        case 200..<300: "\u{1B}[1;32m"
        case 400..<600: "\u{1B}[1;31m"
        default: "\u{1B}[1;33m"
        }
    }

    /// `text` between `color` and ``reset``.
    static func paint(_ text: String, _ color: String) -> String {
        color + text + reset
    }
}
