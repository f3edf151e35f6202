import Foundation
import NIOConcurrencyHelpers

/// Produces a multipart body piece by piece, when the transport asks for the next piece.
///
/// Nothing is read ahead: each call to ``next()`` reads at most ``chunkSize`` bytes, so the
/// memory a body uses does not grow with its files. Each file is checked against the size
/// measured when the body was made; a file that grew, shrank, was rewritten or vanished
/// stops the body with a ``CourierError`` instead of sending a corrupt upload.
final class MultipartReader: Sendable {
    /// The largest piece handed to the transport at once.
    static let chunkSize = 1024 * 1024

    private struct State: Sendable {
        var index = 0
        var offset: Int64 = 0
        var file: (handle: FileHandle, snapshot: FileSnapshot)?
        /// The error that stopped the body; every later call throws it again.
        var failure: CourierError?
    }

    private let segments: [MultipartSegment]
    private let gauge: BufferGauge?
    private let state = NIOLockedValueBox(State())

    init(segments: [MultipartSegment], gauge: BufferGauge? = nil) {
        self.segments = segments
        self.gauge = gauge
    }

    deinit {
        state.withLockedValue { try? $0.file?.handle.close() }
    }

    /// The next piece of the body, or `nil` after the last one.
    func next() throws(CourierError) -> Data? {
        let filled = state.withLockedValue { state in
            Result { () throws(CourierError) in try fill(&state) }
        }
        let (chunk, fileBytes) = try filled.get()
        gauge?.didHandOver(fileBytes)
        return chunk.isEmpty ? nil : chunk
    }

    /// The next piece, and how many of its bytes came from files.
    private func fill(_ state: inout State) throws(CourierError) -> (Data, Int) {
        if let failure = state.failure { throw failure }
        var chunk = Data()
        var fileBytes = 0
        while chunk.count < Self.chunkSize, state.index < segments.count {
            let room = Self.chunkSize - chunk.count
            switch segments[state.index] {
            case .bytes(let data):
                let start = data.startIndex + Int(state.offset)
                let end = start + min(room, data.endIndex - start)
                chunk.append(data[start..<end])
                state.offset += Int64(end - start)
            case .file(let url, let size):
                do {
                    fileBytes += try read(url, size: size, room: room, into: &chunk, state: &state)
                } catch {
                    if let file = state.file { try? file.handle.close() }
                    state.file = nil
                    state.failure = error
                    throw error
                }
            }
            if state.offset == segments[state.index].length {
                state.index += 1
                state.offset = 0
            }
        }
        return (chunk, fileBytes)
    }

    /// Reads up to `room` bytes of the file at `url` into `chunk` and returns how many; checks
    /// the file when its last byte is read.
    private func read(_ url: URL, size: Int64, room: Int, into chunk: inout Data, state: inout State) throws(CourierError) -> Int {
        if state.file == nil {
            let opened = try FileSnapshot.open(url)
            state.file = opened
            guard opened.1.size == size else { throw Self.changed(url, expected: size, found: opened.1.size) }
        }
        let (handle, snapshot) = state.file!
        let wanted = Int(min(Int64(room), size - state.offset))
        var count = 0
        if wanted > 0 {
            let piece: Data?
            do {
                piece = try handle.read(upToCount: wanted)
            } catch {
                throw CourierError(.invalidBody, "The file \(url.path) could not be read while it was sent: \(error).", underlyingError: error)
            }
            guard let piece, !piece.isEmpty else {
                throw Self.changed(url, expected: size, found: FileSnapshot(of: handle)?.size ?? state.offset)
            }
            gauge?.didRead(piece.count)
            if chunk.isEmpty { chunk = piece } else { chunk.append(piece) }
            state.offset += Int64(piece.count)
            count = piece.count
        }
        if state.offset == size {
            let now = FileSnapshot(of: handle)
            try? handle.close()
            state.file = nil
            guard let now, now == snapshot else { throw Self.changed(url, expected: size, found: now?.size) }
        }
        return count
    }

    /// The error for a file that no longer matches what was measured; `isSent` when the
    /// server may already have received its bytes.
    static func changed(_ url: URL, expected: Int64, found: Int64?, isSent: Bool = false) -> CourierError {
        let detail = found.map { found in found == expected ? "its contents were rewritten" : "\(expected) bytes were measured, \(found) found" } ?? "it could no longer be examined"
        let outcome = isSent ? "the server may have received a mix of old and new bytes" : "the upload was stopped so that no corrupt body reached the server"
        return CourierError(.invalidBody, "The file \(url.path) changed while it was being sent (\(detail)); \(outcome). Send it again once the file is complete.")
    }
}

/// Counts the bytes a streamed body has read from disk but not yet handed to the transport,
/// and remembers the most there ever were: the body's own share of memory.
final class BufferGauge: Sendable {
    private let counts = NIOLockedValueBox((held: 0, highWaterMark: 0))

    /// The most bytes held at once so far.
    var highWaterMark: Int { counts.withLockedValue { $0.highWaterMark } }

    func didRead(_ count: Int) {
        counts.withLockedValue { counts in
            counts.held += count
            counts.highWaterMark = max(counts.highWaterMark, counts.held)
        }
    }

    func didHandOver(_ count: Int) {
        counts.withLockedValue { $0.held = max(0, $0.held - count) }
    }
}
