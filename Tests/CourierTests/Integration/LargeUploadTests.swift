import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite("Large uploads")
struct LargeUploadTests {
    /// Bytes written into the otherwise empty (sparse) file, so that the checksum also
    /// catches pieces sent out of order: at the start, across a 64 KiB boundary, in the
    /// middle and at the very end.
    static func markers(size: Int64) -> [(offset: Int64, bytes: Data)] {
        [
            (0, Data("start".utf8)),
            (65_536 * 3 - 2, Data("across".utf8)),
            (size / 2, Data("middle".utf8)),
            (size - 3, Data("end".utf8)),
        ]
    }

    @Test("a 2 GiB file is streamed in bounded memory and arrives whole")
    func twoGibibytes() async throws {
        try await withTemporaryFolder { folder in
            let size: Int64 = 2 << 30
            let file = folder.appendingPathComponent("large.bin")
            #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
            let writer = try FileHandle(forWritingTo: file)
            try writer.truncate(atOffset: UInt64(size))
            for marker in Self.markers(size: size) {
                try writer.seek(toOffset: UInt64(marker.offset))
                try writer.write(contentsOf: marker.bytes)
            }
            try writer.close()

            var form = try MultipartForm(boundary: "large-upload")
            form.addFile(at: file, named: "large")
            let body = try CourierRequestBody.multipart(form)
            let head = Data("--large-upload\r\nContent-Disposition: form-data; name=\"large\"; filename=\"large.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
            let tail = Data("\r\n--large-upload--\r\n".utf8)
            #expect(body.length == Int64(head.count) + size + Int64(tail.count))

            // The expected checksum: the part's head, the file as it is on disk, the tail.
            var expected = CRC32()
            expected.update(with: head)
            let reader = try FileHandle(forReadingFrom: file)
            while let piece = try reader.read(upToCount: 8 << 20), !piece.isEmpty { expected.update(with: piece) }
            try reader.close()
            expected.update(with: tail)

            try await withServer { server in
                try await withClient(server) { client in
                    let callbacks = Recorder<TransferProgress>()
                    var request = CourierRequest<SinkReport>(method: .post, path: "/sink", body: body)
                    request.uploadProgress = { callbacks.record($0) }
                    request.timeout = .seconds(600)
                    let started = ContinuousClock.now
                    let report = try await client.send(request)
                    let elapsed = ContinuousClock.now - started
                    print("2 GiB multipart upload to the in-process server took \(elapsed)")

                    #expect(report.bytes == body.length)
                    #expect(report.crc32 == expected.value)
                    // Memory: over plain HTTP the file goes from the page cache to the socket
                    // (sendfile), so the body reads none of it into memory; the byte path's own
                    // bound is checked where it is used (MultipartReaderTests, the TLS upload).
                    let gauge = try #require(body.bufferGauge)
                    #expect(gauge.highWaterMark == 0)

                    let values = callbacks.values
                    let chunks = Int((body.length! + 65_535) / 65_536)
                    #expect(values.last == TransferProgress(completedBytes: body.length!, totalBytes: body.length))
                    #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
                    #expect(values.count <= 102 + Int(elapsed / .milliseconds(100)))
                    // Within the 600 s timeout the throttle allows at most 6 102 values: far fewer than chunks.
                    #expect(values.count * 4 < chunks, "\(values.count) callbacks for \(chunks) chunks")
                }
            }
        }
    }
}
