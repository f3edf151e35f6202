import Foundation
import NIOConcurrencyHelpers

/// Where the command writes: the process's stdout and stderr, or buffers in tests.
struct Output: Sendable {
    private let writeOut: @Sendable (Data) -> Void
    private let writeError: @Sendable (String) -> Void
    /// Whether stdout is a terminal.
    let isTerminal: Bool

    init(isTerminal: Bool, out: @escaping @Sendable (Data) -> Void, error: @escaping @Sendable (String) -> Void) {
        self.isTerminal = isTerminal
        self.writeOut = out
        self.writeError = error
    }

    static let standard = Output(
        isTerminal: isatty(STDOUT_FILENO) == 1,
        out: { FileHandle.standardOutput.write($0) },
        error: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    )

    @TaskLocal static var current = Output.standard

    func write(_ data: Data) { writeOut(data) }
    func write(_ text: String) { writeOut(Data(text.utf8)) }
    /// Writes one line to stderr; line breaks inside `line` become spaces, so that every
    /// failure is exactly one line.
    func error(_ line: String) {
        writeError(line.split(whereSeparator: \.isNewline).joined(separator: " "))
    }

    /// An output that collects everything, for tests.
    static func capturing() -> (Output, CapturedOutput) {
        let captured = CapturedOutput()
        let output = Output(
            isTerminal: false,
            out: { data in captured.out.withLockedValue { $0.append(data) } },
            error: { line in captured.err.withLockedValue { $0 += line + "\n" } }
        )
        return (output, captured)
    }
}

/// What a capturing ``Output`` collected.
final class CapturedOutput: Sendable {
    let out = NIOLockedValueBox(Data())
    let err = NIOLockedValueBox("")

    var data: Data { out.withLockedValue { $0 } }
    var stdout: String { String(decoding: data, as: UTF8.self) }
    var stderr: String { err.withLockedValue { $0 } }
}
