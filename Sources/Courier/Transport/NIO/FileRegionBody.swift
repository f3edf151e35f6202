import Foundation
import NIOCore

/// The connection a ``FileRegionBody`` is written to, on either road.
protocol RegionWriter: Sendable {
    /// Hands `part` to the connection and returns once the connection can take more, with a
    /// future that completes once the part has really gone to the socket (for a file region,
    /// once `sendfile` has read all of it).
    ///
    /// - Throws: ``ResponseEndedEarly`` once the response has ended and the rest of the body
    ///   is not wanted; what the write fails with.
    func write(_ part: IOData) async throws -> EventLoopFuture<Void>

    /// Closes `file` once the connection can no longer hold one of its regions.
    func closeWhenEnded(_ file: NIOFileHandle)
}

/// Sends a multipart body over a plain-text HTTP/1.1 connection with its files as file regions,
/// which the event loop hands to the kernel (`sendfile`) without reading them into memory.
///
/// The checks are those of ``MultipartReader``: each file must still have the size measured when
/// the body was made when it is opened, and the same size and modification time once its last
/// byte has gone. A multipart body always ends with its closing delimiter, written only after
/// every file passed, so a file that changed never leaves the server with a complete-looking
/// body. While a region is being sent, the file's size is watched as well: a file cut short
/// would leave the kernel with nothing to send, and the request stuck. A file is closed, and
/// checked, only once its last region has been written to the socket.
struct FileRegionBody: Sendable {
    /// How often the size of the file being sent is checked while a region is in flight.
    static let watchInterval = TimeAmount.milliseconds(250)

    let segments: [MultipartSegment]
    let reporter: ProgressReporter?
    /// The body's length, for the progress reporter.
    let length: Int64?
    /// The largest region handed to the connection at once; the file's size is checked
    /// between regions. Small enough that sending one does not hold the event loop, whose other
    /// connections wait meanwhile, for long.
    var regionSize = 1024 * 1024

    /// Whether a multipart body's files go to `url` as file regions, which the kernel sends
    /// straight from the file (`sendfile`): only on a plain-text connection straight to the
    /// server. TLS must encrypt every byte in memory, and a tunnel through `proxy` keeps the
    /// byte path.
    static func applies(to url: URL, proxy: Proxy?) -> Bool {
        proxy == nil && url.scheme?.lowercased() == "http"
    }

    /// Writes the body to `writer` on `loop`, the request's event loop, all but its last piece
    /// when that is bytes (the closing delimiter always is): that piece is returned for the
    /// caller to write together with the end of the body. Stops with what `writer` throws
    /// (``ResponseEndedEarly`` once the response ended first).
    func write(to writer: some RegionWriter, on loop: any EventLoop) async throws -> IOData? {
        reporter?.begin(total: length)
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .bytes(let data):
                var start = data.startIndex
                while start < data.endIndex {
                    let end = min(data.endIndex, start + MultipartReader.chunkSize)
                    let piece = IOData.byteBuffer(ByteBuffer(bytes: data[start..<end]))
                    reporter?.advance(by: end - start)
                    if end == data.endIndex, index == segments.count - 1 {
                        reporter?.end()
                        return piece
                    }
                    _ = try await writer.write(piece)
                    start = end
                }
            case .file(let url, let size):
                try await send(url, size: size, to: writer, on: loop)
            }
        }
        reporter?.end()
        return nil
    }

    /// Sends the file at `url`, measured at `size` bytes, region by region.
    private func send(_ url: URL, size: Int64, to writer: some RegionWriter, on loop: any EventLoop) async throws {
        let (handle, snapshot) = try FileSnapshot.open(url)
        defer { try? handle.close() }
        guard snapshot.size == size else { throw MultipartReader.changed(url, expected: size, found: snapshot.size) }
        let descriptor = dup(handle.fileDescriptor)
        guard descriptor >= 0 else {
            throw CourierError(.invalidBody, "The file \(url.path) could not be read while it was sent: \(String(cString: strerror(errno))).")
        }
        let regionHandle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        // Once every region is sent the file can be closed; before, the connection may still
        // hold one, and the file stays open until the request is over.
        var isSent = false
        defer {
            if isSent { try? regionHandle.close() } else { writer.closeWhenEnded(regionHandle) }
        }
        // The next region is handed over while the previous one is still being sent, so that
        // the socket never runs dry while this task waits for its turn on a thread.
        var offset: Int64 = 0
        var inFlight: EventLoopFuture<Void>?
        while offset < size {
            let end = min(size, offset + Int64(regionSize))
            // A file cut below this region would leave sendfile nothing to send.
            if let now = FileSnapshot(of: handle), now.size < end {
                throw MultipartReader.changed(url, expected: size, found: now.size)
            }
            let region = FileRegion(fileHandle: regionHandle, readerIndex: Int(offset), endIndex: Int(end))
            let written = try await writer.write(.fileRegion(region))
            if let inFlight { try await watched(inFlight, file: handle, url: url, size: size, on: loop) }
            inFlight = written
            reporter?.advance(by: Int(end - offset))
            offset = end
        }
        if let inFlight { try await watched(inFlight, file: handle, url: url, size: size, on: loop) }
        isSent = true
        let now = FileSnapshot(of: handle)
        guard let now, now == snapshot else { throw MultipartReader.changed(url, expected: size, found: now?.size) }
    }

    /// Waits for `write`, failing early if the file shrinks below `size` meanwhile.
    private func watched(
        _ write: EventLoopFuture<Void>, file handle: FileHandle, url: URL, size: Int64, on loop: any EventLoop
    ) async throws {
        let outcome = loop.makePromise(of: Void.self)
        write.cascade(to: outcome)
        let descriptor = handle.fileDescriptor
        let watch = loop.scheduleRepeatedTask(initialDelay: Self.watchInterval, delay: Self.watchInterval) { _ in
            if let status = FileStatus(descriptor: descriptor), status.size < size {
                outcome.fail(MultipartReader.changed(url, expected: size, found: status.size))
            }
        }
        defer { watch.cancel() }
        try await outcome.futureResult.get()
    }
}
