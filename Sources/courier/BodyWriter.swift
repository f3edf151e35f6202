import Foundation
import NIOConcurrencyHelpers

/// Where `fetch` writes a streamed body: stdout, or a file given with `-o` that is written
/// beside its destination and moved into place only once the whole body has arrived. Refuses
/// a body past `--max-filesize`.
final class BodyWriter: Sendable {
    private struct State {
        var written: Int64 = 0
        var handle: FileHandle?
        var destination: URL?
    }

    private let out: Output
    private let temporary: URL?
    private let limit: Int64?
    private let state: NIOLockedValueBox<State>

    /// Opens the working file for `path`, if there is one, before anything is sent: a path
    /// that cannot be written fails the command first.
    init(path: String?, out: Output, limit: Int64?) throws {
        self.out = out
        self.limit = limit
        var state = State()
        if let path {
            let destination = URL(fileURLWithPath: path)
            let temporary = destination.deletingLastPathComponent()
                .appendingPathComponent(".\(destination.lastPathComponent).courier-\(UUID().uuidString.prefix(8))")
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
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
        guard let limit, let length = announcedLength.flatMap({ Int64($0.trimmingCharacters(in: .whitespaces)) }), length > limit else { return }
        throw tooLarge(limit)
    }

    /// Writes one piece of the body.
    func write(_ piece: Data) throws {
        let handle = try state.withLockedValue { state -> FileHandle? in
            state.written += Int64(piece.count)
            if let limit, state.written > limit { throw tooLarge(limit) }
            return state.handle
        }
        guard let handle else { return out.write(piece) }
        do {
            try handle.write(contentsOf: piece)
        } catch {
            throw CommandFailure(.writeError, "could not write \(state.withLockedValue { $0.destination }?.path ?? "the file"): \(error.localizedDescription)")
        }
    }

    /// Makes `path`, in the same folder, the file the complete body is moved to (`-O -J`: the
    /// name the response gave).
    func retarget(to path: String) {
        state.withLockedValue { $0.destination = URL(fileURLWithPath: path) }
    }

    /// Moves the complete body into place.
    func finish() throws {
        let (handle, destination) = state.withLockedValue { ($0.handle, $0.destination) }
        guard let handle, let destination, let temporary else { return }
        do {
            try handle.close()
            if FileManager.default.fileExists(atPath: destination.path) {
                _ = try FileManager.default.replaceItemAt(destination, withItemAt: temporary)
            } else {
                try FileManager.default.moveItem(at: temporary, to: destination)
            }
        } catch {
            abandon()
            throw CommandFailure(.writeError, "could not write \(destination.path): \(error.localizedDescription)")
        }
    }

    /// Removes the working file of a body that did not arrive whole.
    func abandon() {
        guard let temporary else { return }
        try? state.withLockedValue { $0.handle }?.close()
        try? FileManager.default.removeItem(at: temporary)
    }

    private func tooLarge(_ limit: Int64) -> CommandFailure {
        CommandFailure(.fileTooLarge, "the body is larger than --max-filesize \(limit) bytes; it was not kept")
    }
}
