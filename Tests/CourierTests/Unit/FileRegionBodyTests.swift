import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import Courier

/// Stands in for a connection: takes what a body writes, reading file regions back from their
/// files the way `sendfile` would and reporting them sent (a region whose bytes are no longer
/// all there is never reported, as `sendfile` would never finish it), and lets a test act
/// before each write.
private final class WireRecorder: Sendable {
    struct Wire: Sendable {
        var bytes = Data()
        var regions = 0
        var bytesFromBuffers = 0
        var writes = 0
    }

    private let wire = NIOLockedValueBox(Wire())
    private let loop: any EventLoop
    let sent = SentRegions()
    /// Called with the number of the write (from 1) before it is taken.
    private let interfere: @Sendable (Int) -> Void

    init(loop: any EventLoop, interfere: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.loop = loop
        self.interfere = interfere
    }

    var taken: Wire { wire.withLockedValue { $0 } }

    /// The recorder as AsyncHTTPClient's stream writer, which the body is written to.
    var connection: StreamWriterRegions {
        StreamWriterRegions(writer: HTTPClient.Body.StreamWriter { data in self.take(data) }, earlyEnd: EarlyEnd(), sent: sent, loop: loop)
    }

    private func take(_ data: IOData) -> EventLoopFuture<Void> {
        let number = wire.withLockedValue { wire in
            wire.writes += 1
            return wire.writes
        }
        interfere(number)
        switch data {
        case .byteBuffer(let buffer):
            wire.withLockedValue { wire in
                wire.bytes.append(contentsOf: buffer.readableBytesView)
                wire.bytesFromBuffers += buffer.readableBytes
            }
        case .fileRegion(let region):
            var bytes = [UInt8](repeating: 0, count: region.readableBytes)
            let count = try? region.fileHandle.withUnsafeFileDescriptor { descriptor in
                bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(region.readerIndex)) }
            }
            guard count == region.readableBytes else { return loop.makeSucceededVoidFuture() }
            wire.withLockedValue { wire in
                wire.bytes.append(contentsOf: bytes)
                wire.regions += 1
            }
            sent.didSend(data)
        }
        return loop.makeSucceededVoidFuture()
    }
}

@Suite("Multipart bodies sent as file regions")
struct FileRegionBodyTests {
    private let loop = MultiThreadedEventLoopGroup.singleton.next()
    /// Regions as small as this keep the files of these tests small.
    private let regionSize = 64 * 1024

    private func body(fileSize: Int) throws -> (CourierRequestBody, URL, Data) {
        let contents = Data((0..<fileSize).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 9) })
        let file = try temporaryFile(contents)
        var form = try MultipartForm(boundary: "regions")
        form.addField("before", named: "a")
        form.addFile(at: file, named: "f")
        form.addData(Data("after".utf8), named: "z")
        return (try CourierRequestBody.multipart(form), file, contents)
    }

    private func regions(of body: CourierRequestBody, to recorder: WireRecorder, reporter: ProgressReporter? = nil) throws -> FileRegionBody {
        FileRegionBody(
            segments: try #require(body.multipartSegments), reporter: reporter, length: body.length, regionSize: regionSize
        )
    }

    @Test("the wire carries the body's bytes exactly, its file as regions and only the rest as buffers")
    func sameBytes() async throws {
        let fileSize = 2 * regionSize + 123
        let (body, file, _) = try body(fileSize: fileSize)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let values = Recorder<TransferProgress>()
        let recorder = WireRecorder(loop: loop)
        defer { recorder.sent.close() }
        let last = try await regions(of: body, to: recorder, reporter: ProgressReporter { values.record($0) }).write(to: recorder.connection, on: loop)
        // The closing delimiter is handed back, to go out with the end of the body.
        let closing = try #require(last)
        _ = try await recorder.connection.write(closing)

        #expect(try #require(body.bufferGauge).highWaterMark == 0, "nothing was read into memory")
        let wire = recorder.taken
        #expect(wire.bytes == (try await collect(body)))
        #expect(wire.regions == 3)
        #expect(Int64(wire.bytesFromBuffers) == body.length! - Int64(fileSize))
        #expect(values.values.last == TransferProgress(completedBytes: body.length!, totalBytes: body.length))
    }

    @Test(
        "a file that grows, shrinks or is rewritten while it is sent stops the body before its closing delimiter",
        arguments: ["grow", "shrink", "rewrite"])
    func changedWhileSent(change: String) async throws {
        let fileSize = 2 * regionSize
        let (body, file, _) = try body(fileSize: fileSize)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        // Write 1 is the first field with the file's part head, 2 the file's first region.
        let recorder = WireRecorder(loop: loop) { number in
            guard number == 2 else { return }
            do {
                let handle = try FileHandle(forWritingTo: file)
                defer { try? handle.close() }
                switch change {
                case "grow":
                    try handle.seekToEnd()
                    try handle.write(contentsOf: Data([1]))
                case "shrink":
                    try handle.truncate(atOffset: UInt64(fileSize - 1))
                default:
                    try handle.write(contentsOf: Data(repeating: 9, count: 10))
                    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: file.path)
                }
            } catch {
                Issue.record(error)
            }
        }
        defer { recorder.sent.close() }
        let error = await #expect(throws: CourierError.self) {
            try await regions(of: body, to: recorder).write(to: recorder.connection, on: loop)
        }
        #expect(error?.kind == .invalidBody)
        #expect(error?.message.contains("changed while it was being sent") == true)
        #expect(error?.message.contains(file.path) == true)
        let sent = recorder.taken.bytes
        #expect(!sent.isEmpty)
        #expect(sent.range(of: Data("--regions--".utf8)) == nil, "the body never looked complete")
    }

    @Test("a file cut short while a region of it is in flight fails the body instead of leaving it stuck")
    func cutWhileInFlight() async throws {
        let fileSize = regionSize
        let (body, file, _) = try body(fileSize: fileSize)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let recorder = WireRecorder(loop: loop) { number in
            guard number == 2 else { return }
            let handle = try? FileHandle(forWritingTo: file)
            try? handle?.truncate(atOffset: 10)
            try? handle?.close()
        }
        defer { recorder.sent.close() }
        let error = await #expect(throws: CourierError.self) {
            try await regions(of: body, to: recorder).write(to: recorder.connection, on: loop)
        }
        #expect(error?.kind == .invalidBody)
        #expect(error?.message.contains("\(fileSize) bytes were measured, 10 found") == true, "\(String(describing: error))")
    }

    @Test("a file that changed size between measuring and sending is refused before any of it is sent")
    func changedBeforeSending() async throws {
        let (body, file, contents) = try body(fileSize: 1000)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try (contents + Data([0])).write(to: file)
        let recorder = WireRecorder(loop: loop)
        defer { recorder.sent.close() }
        let error = await #expect(throws: CourierError.self) {
            try await regions(of: body, to: recorder).write(to: recorder.connection, on: loop)
        }
        #expect(error?.message.contains("1000 bytes were measured, 1001 found") == true, "\(String(describing: error))")
        #expect(recorder.taken.regions == 0)
    }

    @Test("file regions are used only on plain-text connections straight to the server")
    func onlyPlainText() {
        let proxy = Proxy(host: "127.0.0.1", port: 3128)
        #expect(FileRegionBody.applies(to: URL(string: "http://127.0.0.1:8080/upload")!, proxy: nil))
        #expect(FileRegionBody.applies(to: URL(string: "HTTP://example.com/upload")!, proxy: nil))
        #expect(!FileRegionBody.applies(to: URL(string: "https://example.com/upload")!, proxy: nil))
        #expect(!FileRegionBody.applies(to: URL(string: "http://127.0.0.1:8080/upload")!, proxy: proxy))
    }
}
