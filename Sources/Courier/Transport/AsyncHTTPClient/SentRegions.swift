import NIOConcurrencyHelpers
import NIOCore

/// Tells a body sent as file regions when a region has really gone to the socket.
///
/// The futures of AsyncHTTPClient's stream writer complete when the connection can take more,
/// which may be before the region was sent; a file must stay open, and is checked for changes,
/// only once `sendfile` has read all of it. The request's delegate reports each part written
/// (``didSend(_:)``), and the request's end fails whatever still waits (``close()``).
final class SentRegions: Sendable {
    private struct Key: Hashable {
        var file: ObjectIdentifier
        var end: Int
    }

    private struct State {
        var waiting: [Key: EventLoopPromise<Void>] = [:]
        var files: [NIOFileHandle] = []
        var isClosed = false
    }

    private let state = NIOLockedValueBox(State())

    /// A future that completes once `region` has been written, or fails when the request ends
    /// first. Call it before the region is handed to the connection.
    func expect(_ region: FileRegion, on loop: any EventLoop) -> EventLoopFuture<Void> {
        let promise = loop.makePromise(of: Void.self)
        let isClosed = state.withLockedValue { state in
            if !state.isClosed { state.waiting[Self.key(region)] = promise }
            return state.isClosed
        }
        if isClosed { promise.fail(Self.ended) }
        return promise.futureResult
    }

    /// A part of the request body was written to the socket.
    func didSend(_ part: IOData) {
        guard case .fileRegion(let region) = part else { return }
        let promise = state.withLockedValue { $0.waiting.removeValue(forKey: Self.key(region)) }
        promise?.succeed()
    }

    /// Closes `file` once the request is over, when the connection can no longer hold one of
    /// its regions.
    func closeWhenEnded(_ file: NIOFileHandle) {
        let isClosed = state.withLockedValue { state in
            if !state.isClosed { state.files.append(file) }
            return state.isClosed
        }
        if isClosed { try? file.close() }
    }

    /// The request ended: nothing more will be written.
    func close() {
        let (waiting, files) = state.withLockedValue { state in
            state.isClosed = true
            defer {
                state.waiting = [:]
                state.files = []
            }
            return (Array(state.waiting.values), state.files)
        }
        for promise in waiting { promise.fail(Self.ended) }
        for file in files { try? file.close() }
    }

    private static func key(_ region: FileRegion) -> Key {
        Key(file: ObjectIdentifier(region.fileHandle), end: region.endIndex)
    }

    private static var ended: CourierError {
        CourierError(.connectionFailed, "The request ended before a file of its body had been sent.")
    }
}
