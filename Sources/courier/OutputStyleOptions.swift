import ArgumentParser

/// `--pretty`: how a response is shown when stdout is a terminal.
struct OutputStyleOptions: ParsableArguments {
    /// The choices of `--pretty`, HTTPie's.
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

    @Option(
        help: ArgumentHelp(
            "On a terminal, show JSON bodies indented and coloured (all), coloured (colors), indented (format) or as received (none); by default all, without colours when NO_COLOR is set or TERM=dumb. Output that is not a terminal, and -o files, are never changed.",
            valueName: "all|colors|format|none"))
    var pretty: Pretty?
}
