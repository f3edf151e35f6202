import Foundation
import NIOConcurrencyHelpers

/// Where the command writes: the process's stdout and stderr, or buffers in tests.
struct Output: Sendable {
    private let writeOut: @Sendable (Data) -> Void
    private let writeError: @Sendable (String) -> Void
    /// Rewrites the progress line; `nil` when stderr is not a terminal.
    let progress: (@Sendable (String) -> Void)?

    init(
        out: @escaping @Sendable (Data) -> Void,
        error: @escaping @Sendable (String) -> Void,
        progress: (@Sendable (String) -> Void)? = nil
    ) {
        self.writeOut = out
        self.writeError = error
        self.progress = progress
    }

    static let standard = Output(
        out: { FileHandle.standardOutput.write($0) },
        error: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) },
        progress: isatty(STDERR_FILENO) == 1 ? redrawOnStandardError : nil
    )

    /// Carriage return, erase to the end of the line, then the new text.
    @Sendable private static func redrawOnStandardError(_ line: String) {
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
    }

    @TaskLocal static var current = Output.standard

    func write(_ data: Data) { writeOut(data) }
    func write(_ text: String) { writeOut(Data(text.utf8)) }
    /// Writes one line to stderr; line breaks inside `line` become spaces, so that every
    /// failure is exactly one line.
    func error(_ line: String) {
        writeError(line.split(whereSeparator: \.isNewline).joined(separator: " "))
    }

    /// An output that collects everything, for tests; with `terminal`, progress lines too.
    static func capturing(terminal: Bool = false) -> (Output, CapturedOutput) {
        let captured = CapturedOutput()
        let progress: @Sendable (String) -> Void = { line in captured.progressLines.withLockedValue { $0.append(line) } }
        let output = Output(
            out: { data in captured.out.withLockedValue { $0.append(data) } },
            error: { line in captured.err.withLockedValue { $0 += line + "\n" } },
            progress: terminal ? progress : nil
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
