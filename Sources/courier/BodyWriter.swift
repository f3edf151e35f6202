import Courier
import Foundation
import NIOConcurrencyHelpers

/// Where `fetch` writes a streamed body: stdout, or a file given with `-o` that is written
/// beside its destination and moved into place only once the whole body has arrived. Refuses
/// a body past `--max-filesize`.
///
/// On stdout, a JSON body that the terminal style lays out is held until it is complete (up to
/// `TerminalStyle.maximumBodyBytes`; past that it is written as received). A file's bytes are
/// never changed; while one is written, a long transfer shows a progress line on a stderr
/// terminal. The head and the trailers that `--include` and `--head` show go where the body
/// goes, as in curl: into the file, around the body, or on stdout.
final class BodyWriter: Sendable {
    private struct State {
        var written: Int64 = 0
        var handle: FileHandle?
        var destination: URL?
        /// The JSON body held to be laid out, and its media type.
        var held: (body: Data, mediaType: String?)?
        var total: Int64?
    }

    /// How long a command writing to a file (or sending one) runs before its progress line
    /// appears.
    @TaskLocal static var progressDelay = Duration.seconds(1)

    private let out: Output
    private let temporary: URL?
    private let limit: Int64?
    private let style: TerminalStyle
    private let progress: TransferProgressLine?
    private let state: NIOLockedValueBox<State>

    /// Opens the working file for `path`, if there is one, before anything is sent: a path
    /// that cannot be written fails the command first.
    ///
    /// - Parameters:
    ///   - style: how a body written to stdout is shown.
    ///   - progressSince: when the command started, if a long transfer to the file may show a
    ///     progress line (not with `-s`); it does only when stderr is a terminal, from
    ///     ``progressDelay`` after that instant.
    init(path: String?, out: Output, limit: Int64?, style: TerminalStyle = .asReceived, progressSince: ContinuousClock.Instant? = nil) throws {
        self.out = out
        self.limit = limit
        self.style = style
        if path != nil, let progressSince, out.progress != nil {
            self.progress = TransferProgressLine(output: out, quietUntil: progressSince + Self.progressDelay)
        } else {
            self.progress = nil
        }
        var state = State()
        if let path, PathCheck.isCharacterDevice(path) {
            // A device (`/dev/null`, a terminal) is written to directly: nothing to move into place.
            guard let handle = FileHandle(forWritingAtPath: path) else {
                throw CommandFailure(.writeError, "could not write \(path): check that the device can be written to")
            }
            self.temporary = nil
            state.handle = handle
        } else if let path {
            let destination = URL(fileURLWithPath: path)
            let temporary = destination.deletingLastPathComponent()
                .appendingPathComponent(".\(destination.lastPathComponent).courier-\(UUID().uuidString.prefix(8))")
            // For the owner alone, like every file that holds what a user fetched.
            guard PrivateFiles.makeFile(temporary.path) == .created,
                let handle = try? FileHandle(forWritingTo: temporary)
            else {
                throw CommandFailure(.writeError, "could not write \(path): check that its folder exists and is writable")
            }
            self.temporary = temporary
            state.handle = handle
            state.destination = destination
        } else {
            self.temporary = nil
        }
        self.state = NIOLockedValueBox(state)
    }

    /// Refuses a body whose announced length is past the limit, before any of it is read.
    func check(announcedLength: String?) throws {
        guard let limit, let length = announcedLength.flatMap(ContentLength.parse), length > limit else { return }
        throw tooLarge(limit)
    }

    /// Takes note of the head of the body about to be written: its length for the progress
    /// line, its media type for the terminal style.
    func begin(_ head: CourierResponse) {
        state.withLockedValue { state in
            state.total = head.headers.contentLength
            if state.handle == nil, style.laysOut(mediaType: head.mediaType) { state.held = (Data(), head.mediaType) }
        }
        progress?.update(TransferProgress(completedBytes: 0, totalBytes: state.withLockedValue { $0.total }))
    }

    /// Writes the status line and header fields before the body: into the file as received,
    /// or on stdout in the terminal's style. They count toward neither `--max-filesize` nor
    /// the progress line.
    func writeHead(_ head: CourierResponse) throws {
        try writeAround(file: TerminalStyle.asReceived.head(head), stdout: style.head(head))
    }

    /// Writes what goes to the file, or else to stdout, outside the body.
    private func writeAround(file: String, stdout: String) throws {
        guard let handle = state.withLockedValue({ $0.handle }) else {
            out.write(stdout)
            return
        }
        do {
            try handle.write(contentsOf: Data(file.utf8))
        } catch {
            throw CommandFailure(.writeError, "could not write \(state.withLockedValue { $0.destination }?.path ?? "the file"): \(error.localizedDescription)")
        }
    }

    /// Writes one piece of the body.
    func write(_ piece: Data) throws {
        let (handle, release, progress) = try state.withLockedValue { state -> (FileHandle?, Data?, TransferProgress) in
            state.written += Int64(piece.count)
            if let limit, state.written > limit { throw tooLarge(limit) }
            let progress = TransferProgress(completedBytes: state.written, totalBytes: state.total)
            guard state.held != nil else { return (state.handle, piece, progress) }
            state.held!.body.append(piece)
            // Too large to lay out: what was held, and the rest, go out as received.
            guard let body = state.held?.body, body.count > TerminalStyle.maximumBodyBytes else { return (nil, nil, progress) }
            state.held = nil
            return (nil, body, progress)
        }
        guard let handle else {
            if let release { out.write(release) }
            return
        }
        do {
            try handle.write(contentsOf: piece)
        } catch {
            throw CommandFailure(.writeError, "could not write \(state.withLockedValue { $0.destination }?.path ?? "the file"): \(error.localizedDescription)")
        }
        self.progress?.update(progress)
    }

    /// Makes `path`, in the same folder, the file the complete body is moved to (`-O -J`: the
    /// name the response gave).
    func retarget(to path: String) {
        state.withLockedValue { $0.destination = URL(fileURLWithPath: path) }
    }

    /// Writes a held body, laid out, then `trailers` (with `--include`), and moves the complete
    /// file into place: a body, or a head alone (`--head`, or a body `--fail` left out).
    func finish(trailers: Headers? = nil) throws {
        if let held = takeHeld() { out.write(style.body(held.body, mediaType: held.mediaType)) }
        if let trailers {
            do {
                try writeAround(file: TerminalStyle.asReceived.trailers(trailers), stdout: style.trailers(trailers))
            } catch {
                abandon()
                throw error
            }
        }
        progress?.finishLine()
        let (handle, destination) = state.withLockedValue { ($0.handle, $0.destination) }
        guard let handle, let destination, let temporary else {
            try? handle?.close()
            return
        }
        do {
            try handle.close()
        } catch {
            abandon()
            throw CommandFailure(.writeError, "could not write \(destination.path): \(error.localizedDescription)")
        }
        // One rename, which replaces a file that is there in one step and keeps the new file's
        // mode: a replaced file's wider mode is not carried over.
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            abandon()
            throw CommandFailure(.writeError, "could not write \(destination.path): \(reason)")
        }
    }

    /// Writes what a held body had received, as received; removes the working file of a body
    /// that did not arrive whole.
    func abandon() {
        if let held = takeHeld() { out.write(held.body) }
        progress?.finishLine()
        guard let temporary else { return }
        try? state.withLockedValue { $0.handle }?.close()
        try? FileManager.default.removeItem(at: temporary)
    }

    private func takeHeld() -> (body: Data, mediaType: String?)? {
        state.withLockedValue { state in
            defer { state.held = nil }
            return state.held
        }
    }

    private func tooLarge(_ limit: Int64) -> CommandFailure {
        CommandFailure(.fileTooLarge, "the body is larger than --max-filesize \(limit) bytes; it was not kept")
    }
}
