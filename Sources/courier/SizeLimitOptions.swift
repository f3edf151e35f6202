import ArgumentParser

/// `--max-filesize`, shared by `fetch` and `download`: the largest body accepted.
struct SizeLimitOptions: ParsableArguments {
    @Option(
        name: .customLong("max-filesize"), parsing: .unconditional,
        help: ArgumentHelp("Refuse a body larger than this many bytes, 0 to 9223372036854775807 (exit status 63, as in curl); nothing is kept. Bodies written to stdout, -o or a download are streamed, with no limit by default.", valueName: "bytes"),
        transform: OptionRange.whole(in: OptionRange.bytes)
    )
    var maxFilesize: Int64?
}
