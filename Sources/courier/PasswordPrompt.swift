import Courier
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Asks for the password of `-u USER` on the controlling terminal, as curl does.
enum PasswordPrompt {
    /// Shows a prompt and returns the line typed, or `nil` when there is no terminal to ask
    /// on; tests give their own answer.
    @TaskLocal static var ask: @Sendable (_ prompt: String) throws -> String? = { try PasswordPrompt.readFromTerminal(prompt: $0) }

    /// The longest password read, in bytes.
    static let maximumLength = 4096

    /// The password for `user`: asks with curl's prompt.
    ///
    /// - Throws: a usage error (status 2) when there is no terminal, naming the ways to give
    ///   the password instead; an interruption when Ctrl-C is pressed while it waits.
    static func password(for user: String) throws -> String {
        guard let password = try ask("Enter host password for user '\(PrintableText.escaping(user))':") else {
            throw CommandFailure(
                .invalidInput,
                "-u \(PrintableText.escaping(user)) has no password and there is no terminal to ask for it on; give -u USER:PASSWORD, or put it in a netrc file and give --netrc"
            )
        }
        return password
    }

    /// Writes `prompt` to /dev/tty and reads one line from it with echo off; the terminal's
    /// settings are restored whatever happens, Ctrl-C included (it cancels the command, which
    /// this notices within a tenth of a second). `nil` when the process has no controlling
    /// terminal.
    static func readFromTerminal(prompt: String) throws -> String? {
        let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { return nil }
        defer { close(terminal) }
        var saved = termios()
        guard tcgetattr(terminal, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        write(Data(prompt.utf8), to: terminal)
        guard tcsetattr(terminal, TCSAFLUSH, &quiet) == 0 else { return nil }
        defer {
            _ = tcsetattr(terminal, TCSAFLUSH, &saved)
            // The Enter typed was not echoed either.
            write(Data("\n".utf8), to: terminal)
        }
        return String(decoding: try readLine(from: terminal), as: UTF8.self)
    }

    /// The bytes of one line read from `terminal`, without its line feed.
    private static func readLine(from terminal: Int32) throws -> [UInt8] {
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            var waiting = pollfd(fd: terminal, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 100)
            if Task.isCancelled { throw CancellationError() }
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { throw CommandFailure(.unexpected, "could not read the password from the terminal (\(String(cString: strerror(errno))))") }
            if ready == 0 { continue }
            let count = read(terminal, &buffer, buffer.count)
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            // The end of input (Ctrl-D) ends the line too.
            guard count > 0 else { return line }
            if let end = buffer[..<count].firstIndex(of: 0x0A) {
                line += buffer[..<end]
                return line.last == 0x0D ? Array(line.dropLast()) : line
            }
            line += buffer[..<count]
            guard line.count <= maximumLength else {
                throw CommandFailure(.invalidInput, "the password typed is longer than \(maximumLength) bytes")
            }
        }
    }

    /// Writes all of `data` to `descriptor`, as far as it can.
    private static func write(_ data: Data, to descriptor: Int32) {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }
                offset += count
            }
        }
    }
}

/// The system's `write`, which ``PasswordPrompt``'s own `write(_:to:)` hides inside it.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
