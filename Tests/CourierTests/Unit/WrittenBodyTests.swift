import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import Courier

/// The hand-over between a ``RequestBodyWriter`` and the transport that reads its pieces.
@Suite("Written bodies")
struct WrittenBodyTests {
    @Test("a write returns only once the reader took its piece, and the trailers follow the end")
    func piecesGoOneAtATime() async throws {
        let body = WrittenBody()
        let log = Log()
        let writer = Task {
            for piece in ["a", "b"] {
                try await body.write(Data(piece.utf8))
                log.append("wrote \(piece)")
            }
            body.finish(.success(["X-Sum": "2"]))
        }
        // The first write waits for the reader: parked, not yet returned.
        while !body.hasWaitingWriter { await Task.yield() }
        #expect(log.entries.isEmpty)
        let first = try await body.next()
        #expect(first == Data("a".utf8))
        let second = try await body.next()
        #expect(second == Data("b".utf8))
        #expect(try await body.next() == nil)
        try await writer.value
        #expect(log.entries == ["wrote a", "wrote b"])
        #expect(body.trailers == ["X-Sum": "2"])
    }

    @Test("a reader that lets go fails the waiting write, and every later one")
    func closingFailsTheWriter() async throws {
        let body = WrittenBody()
        let waiting = Task { try await body.write(Data("never taken".utf8)) }
        // The write is parked until the body is closed; close only once it is.
        while !body.hasWaitingWriter { await Task.yield() }
        body.close()
        let error = await #expect(throws: CourierError.self) { try await waiting.value }
        #expect(error?.kind == .cancelled)
        await #expect(throws: CourierError.self) { try await body.write(Data("late".utf8)) }
    }

    @Test("two writes at once are refused, and a write after the closure returned")
    func misuseIsRefused() async throws {
        let body = WrittenBody()
        let first = Task { try await body.write(Data("a".utf8)) }
        while !body.hasWaitingWriter { await Task.yield() }
        let error = await #expect(throws: CourierError.self) { try await body.write(Data("b".utf8)) }
        #expect(error?.kind == .invalidBody)
        #expect(try await body.next() == Data("a".utf8))
        try await first.value
        body.finish(.success([:]))
        #expect(try await body.next() == nil)
        let late = await #expect(throws: CourierError.self) { try await body.write(Data("c".utf8)) }
        #expect(late?.kind == .invalidBody)
    }

    @Test("a reader's task cancelled while it waits lets go")
    func cancelledReader() async throws {
        let body = WrittenBody()
        let reader = Task { try await body.next() }
        reader.cancel()
        await #expect(throws: CancellationError.self) { _ = try await reader.value }
    }

    @Test("trailers are checked before the end: none with a length, none that frames or injects")
    func trailerChecks() throws {
        #expect(throws: Never.self) { try CourierRequestBody.checkTrailers(["X-Checksum": "1"], length: nil) }
        #expect(throws: Never.self) { try CourierRequestBody.checkTrailers([:], length: 6) }
        for (trailers, length, kind) in [
            (["X-Checksum": "1"] as Headers, Int64?.some(6), CourierError.Kind.invalidBody),
            (["Transfer-Encoding": "chunked"], nil, .invalidHeader),
            (["Host": "elsewhere"], nil, .invalidHeader),
            (["Set-Cookie\r\nX": "1"], nil, .invalidHeader),
            (["X-A": "1\nX-B: 2"], nil, .invalidHeader),
        ] {
            let error = #expect(throws: CourierError.self) { try CourierRequestBody.checkTrailers(trailers, length: length) }
            #expect(error?.kind == kind, "\(trailers)")
        }
    }

    @Test("a response's trailers are unknown until its body ended, and none after a failure")
    func handoffTrailers() {
        let ended = BodyHandoff()
        #expect(ended.trailers == nil)
        ended.end(.success(()), trailers: ["Grpc-Status": "0"])
        #expect(ended.trailers == ["Grpc-Status": "0"])
        let plain = BodyHandoff()
        plain.end(.success(()))
        #expect(plain.trailers == Headers())
        let failed = BodyHandoff()
        failed.end(.failure(CancellationError()), trailers: ["Grpc-Status": "0"])
        #expect(failed.trailers == nil)
    }
}

/// Lines recorded from several tasks.
private final class Log: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var entries: [String] { lock.withLock { lines } }
}
