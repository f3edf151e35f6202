import Courier
import Foundation
import NIOConcurrencyHelpers

/// Where the command writes: the process's stdout and stderr, or buffers in tests.
///
/// Every message goes through ``error(_:)``, ``line(_:)`` or ``progress``, which escape control
/// and bidirectional characters (`\u{1B}`, see `PrintableText`): text a server chose (a reason
/// phrase, a header, a URL, a file name) can never drive the terminal. Only a response body,
/// which is data, is written as it is, with ``write(_:)``.
struct Output: Sendable {
    private let writeOut: @Sendable (Data) -> Void
    private let writeError: @Sendable (String) -> Void
    /// Rewrites the progress line; `nil` when stderr is not a terminal.
    let progress: (@Sendable (String) -> Void)?
    /// Whether stdout is a terminal, where `fetch` may lay out and colour what it prints (see
    /// `TerminalStyle`).
    let standardOutputIsTerminal: Bool

    init(
        out: @escaping @Sendable (Data) -> Void,
        error: @escaping @Sendable (String) -> Void,
        progress: (@Sendable (String) -> Void)? = nil,
        standardOutputIsTerminal: Bool = false
    ) {
        self.writeOut = out
        self.writeError = error
        self.standardOutputIsTerminal = standardOutputIsTerminal
        if let progress {
            self.progress = { @Sendable text in progress(Output.printable(keepingLineBreaks: text)) }
        } else {
            self.progress = nil
        }
    }

    static let standard = Output(
        out: { data in
            // A reader that went away (`courier … | head -1`) ends the command as curl ends:
            // quietly, with its write-error status, never with a trap.
            do {
                try FileHandle.standardOutput.write(contentsOf: data)
            } catch {
                exit(ExitStatus.writeError.rawValue)
            }
        },
        error: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) },
        progress: isatty(STDERR_FILENO) == 1 ? redrawOnStandardError : nil,
        standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1
    )

    /// Carriage return, erase to the end of the line, then the new text.
    @Sendable private static func redrawOnStandardError(_ line: String) {
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
    }

    @TaskLocal static var current = Output.standard

    /// Writes data (a response body) to stdout as it is.
    func write(_ data: Data) { writeOut(data) }
    /// Writes text that is data (a body, a JSON report, help) to stdout as it is.
    func write(_ text: String) { writeOut(Data(text.utf8)) }

    /// Writes one message line to stdout, control and bidirectional characters escaped.
    func line(_ text: String) { writeOut(Data((PrintableText.escaping(text) + "\n").utf8)) }

    /// Writes one line to stderr; line breaks inside `line` become spaces, so that every
    /// failure is exactly one line, and other control and bidirectional characters are escaped.
    func error(_ line: String) {
        writeError(PrintableText.escaping(line.split(whereSeparator: \.isNewline).joined(separator: " ")))
    }

    /// `text` escaped line by line, its own line breaks kept (a progress line ends with one).
    private static func printable(keepingLineBreaks text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { PrintableText.escaping(String($0)) }.joined(separator: "\n")
    }

    /// An output that collects everything, for tests; with `terminal`, progress lines too (stderr
    /// is a terminal); with `standardOutputIsTerminal`, stdout is taken for a terminal.
    static func capturing(terminal: Bool = false, standardOutputIsTerminal: Bool = false) -> (Output, CapturedOutput) {
        let captured = CapturedOutput()
        let progress: @Sendable (String) -> Void = { line in captured.progressLines.withLockedValue { $0.append(line) } }
        let output = Output(
            out: { data in captured.out.withLockedValue { $0.append(data) } },
            error: { line in captured.err.withLockedValue { $0 += line + "\n" } },
            progress: terminal ? progress : nil,
            standardOutputIsTerminal: standardOutputIsTerminal
        )
        return (output, captured)
    }
}

/// What a capturing ``Output`` collected.
final class CapturedOutput: Sendable {
    let out = NIOLockedValueBox(Data())
    let err = NIOLockedValueBox("")
    let progressLines = NIOLockedValueBox<[String]>([])

    var data: Data { out.withLockedValue { $0 } }
    var stdout: String { String(decoding: data, as: UTF8.self) }
    var stderr: String { err.withLockedValue { $0 } }
    var progress: [String] { progressLines.withLockedValue { $0 } }
}
