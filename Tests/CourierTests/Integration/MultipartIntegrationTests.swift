import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The test server's `/multipart` answer: the parts it parsed, in order.
struct ParsedForm: Decodable, Sendable {
    struct Part: Decodable, Sendable, Equatable {
        let name: String
        let filename: String?
        let extendedFilename: String?
        let contentType: String?
        let disposition: String
        let size: Int
        let content: String

        enum CodingKeys: String, CodingKey {
            case name, filename, disposition, size, content
            case extendedFilename = "filename*"
            case contentType = "content_type"
        }
    }

    let boundary: String
    let parts: [Part]
}

/// The test server's `/sink` answer.
struct SinkReport: Decodable, Sendable {
    let bytes: Int64
    let crc32: UInt32
}

/// A folder of its own in the temporary directory, removed after `body`.
func withTemporaryFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}

/// Collects values from `@Sendable` callbacks.
final class Recorder<Value: Sendable>: Sendable {
    private let box = NIOLockedValueBox<[Value]>([])
    func record(_ value: Value) { box.withLockedValue { $0.append(value) } }
    var values: [Value] { box.withLockedValue { $0 } }
}

@Suite("Multipart uploads")
struct MultipartIntegrationTests {
    @Test func fieldsDataAndFilesAreParsedBackByTheServer() async throws {
        try await withTemporaryFolder { folder in
            let photo = folder.appendingPathComponent("photo.png")
            let pixels = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try pixels.write(to: photo)
            var form = MultipartForm()
            form.addField("Hello, world", named: "title")
            form.addField("Zoë\r\n--not-a-boundary", named: "caption")
            form.addFile(at: photo, named: "avatar")
            form.addData(Data("a,b\n1,2\n".utf8), named: "table", filename: "table.csv")
            form.addFile(at: photo, named: "copy", filename: "fotografía.png", contentType: "image/x-test")
            try await withServer { server in
                try await withClient(server) { client in
                    let parsed = try await client.send(CourierRequest<ParsedForm>(method: .post, path: "/multipart", body: try .multipart(form)))
                    #expect(parsed.boundary == form.boundary)
                    #expect(parsed.parts.map(\.name) == ["title", "caption", "avatar", "table", "copy"])
                    #expect(parsed.parts[0].content == "Hello, world" && parsed.parts[0].filename == nil && parsed.parts[0].contentType == nil)
                    #expect(parsed.parts[1].content == "Zoë\r\n--not-a-boundary")
                    #expect(parsed.parts[2].filename == "photo.png" && parsed.parts[2].contentType == "image/png")
                    #expect(parsed.parts[2].size == pixels.count)
                    #expect(parsed.parts[2].content == "data:application/octet-stream;base64,\(pixels.base64EncodedString())")
                    #expect(parsed.parts[3].filename == "table.csv" && parsed.parts[3].contentType == "text/csv")
                    #expect(parsed.parts[3].content == "a,b\n1,2\n")
                    #expect(parsed.parts[4].filename == "fotografia.png" && parsed.parts[4].extendedFilename == "fotografía.png")
                    #expect(parsed.parts[4].contentType == "image/x-test" && parsed.parts[4].size == pixels.count)
                    let received = try #require(server.receivedRequests.last)
                    #expect(received.header("Content-Type") == form.contentType)
                    #expect(received.header("Content-Length") == String(received.body.count), "the length was known up front")
                    #expect(received.header("Transfer-Encoding") == nil)
                }
            }
        }
    }

    @Test func theWireBytesOfASmallFormWithAChosenBoundary() async throws {
        try await withTemporaryFolder { folder in
            let notes = folder.appendingPathComponent("notes.txt")
            try Data("line one\nline two\n".utf8).write(to: notes)
            var form = try MultipartForm(boundary: "courier-test-boundary")
            form.addField("1", named: "id")
            form.addFile(at: notes, named: "notes")
            form.addData(Data([0xC3, 0x28]), named: "raw")
            let expected =
                Data(
                    ("--courier-test-boundary\r\nContent-Disposition: form-data; name=\"id\"\r\n\r\n1\r\n"
                        + "--courier-test-boundary\r\nContent-Disposition: form-data; name=\"notes\"; filename=\"notes.txt\"\r\n"
                        + "Content-Type: text/plain\r\n\r\nline one\nline two\n\r\n"
                        + "--courier-test-boundary\r\nContent-Disposition: form-data; name=\"raw\"\r\n"
                        + "Content-Type: application/octet-stream\r\n\r\n").utf8) + Data([0xC3, 0x28]) + Data("\r\n--courier-test-boundary--\r\n".utf8)
            try await withServer { server in
                try await withClient(server) { client in
                    let echo = try await client.send(CourierRequest<Echo>(method: .post, path: "/anything", body: try .multipart(form)))
                    let received = try #require(server.receivedRequests.last)
                    #expect(Data(received.body) == expected)
                    #expect(received.header("Content-Type") == "multipart/form-data; boundary=courier-test-boundary")
                    #expect(received.header("Content-Length") == String(expected.count))
                    #expect(echo.form["id"] == "1")
                }
            }
        }
    }

    @Test(
        "quotes, CR and LF in names and file names cannot forge headers or parts; non-ASCII file names survive",
        arguments: [
            ("plain", "plain.txt", "plain", "plain.txt", nil),
            ("say \"hi\"", "my \"best\" file.txt", "say %22hi%22", "my %22best%22 file.txt", nil),
            ("x\r\nContent-Type: text/html", "a\r\n\r\nbody.txt", "x%0D%0AContent-Type: text/html", "a%0D%0A%0D%0Abody.txt", nil),
            ("названия", "résumé \"v2\".pdf", "названия", "resume %22v2%22.pdf", "résumé \"v2\".pdf"),
            ("emoji", "😀\r\n.png", "emoji", "_%0D%0A.png", "😀\r\n.png"),
        ] as [(String, String, String, String, String?)])
    func escaping(name: String, filename: String, sentName: String, sentFilename: String, extended: String?) async throws {
        var form = MultipartForm()
        form.addData(Data("content".utf8), named: name, filename: filename, contentType: "text/plain")
        form.addField("after", named: "next")
        try await withServer { server in
            try await withClient(server) { client in
                let parsed = try await client.send(CourierRequest<ParsedForm>(method: .post, path: "/multipart", body: try .multipart(form)))
                #expect(parsed.parts.count == 2)
                let part = try #require(parsed.parts.first)
                #expect(part.name == sentName)
                #expect(part.filename == sentFilename)
                #expect(part.extendedFilename == extended)
                #expect(part.contentType == "text/plain")
                #expect(part.content == "content")
                #expect(parsed.parts.last?.name == "next" && parsed.parts.last?.content == "after")
            }
        }
    }

    @Test func aRejectionSentBeforeTheBodyIsReadIsDeliveredAsAResponse() async throws {
        // The server answers 413 as soon as it has the request head and reads nothing more.
        let rejection = Array("HTTP/1.1 413 Content Too Large\r\nContent-Length: 8\r\nContent-Type: text/plain\r\n\r\ntoo much".utf8)
        let server = try await FaultServer.start(.raw(rejection))
        var form = MultipartForm()
        form.addData(Data(repeating: 7, count: 8 << 20), named: "upload", filename: "big.bin")
        let body = try CourierRequestBody.multipart(form)
        let error = await courierError {
            try await withClient(nil) { client in
                _ = try await client.send(CourierRequest<Data>(method: .post, path: server.url.absoluteString, body: body))
            }
        }
        try await server.shutdown()
        #expect(error?.kind == .validationFailed)
        #expect(error?.response?.status == 413)
        #expect(error?.response.map { String(decoding: $0.body, as: UTF8.self) } == "too much")
    }

    @Test func aRedirectThatKeepsTheBodyReadsTheFileAgain() async throws {
        try await withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("data.bin")
            let contents = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
            try contents.write(to: file)
            var form = MultipartForm()
            form.addFile(at: file, named: "file")
            let body = try CourierRequestBody.multipart(form)
            try await withServer { server in
                try await withClient(server) { client in
                    let request = CourierRequest<ParsedForm>(method: .post, path: "/redirect-to?url=/multipart&status_code=307", body: body)
                    let parsed = try await client.send(request)
                    #expect(parsed.parts.first?.size == contents.count)
                    let bodies = server.receivedRequests.map(\.body.count)
                    #expect(bodies == [Int(body.length!), Int(body.length!)])
                }
            }
        }
    }

    @Test(
        "a file that grows or shrinks during the upload ends it with a typed error, and the server gets no request",
        arguments: [true, false])
    func fileChangedDuringUpload(grows: Bool) async throws {
        try await withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("growing.log")
            try Data(repeating: 65, count: 1 << 20).write(to: file)
            var form = MultipartForm()
            form.addFile(at: file, named: "log")
            try await withServer { server in
                try await withClient(server) { client in
                    let changed = NIOLockedValueBox(false)
                    var request = CourierRequest<Void>(method: .post, path: "/multipart", body: try .multipart(form))
                    // The first call comes before the first byte is read: change the file then.
                    request.uploadProgress = { _ in
                        guard
                            changed.withLockedValue({ done in
                                defer { done = true }; return !done
                            })
                        else { return }
                        guard let handle = try? FileHandle(forWritingTo: file) else { return }
                        if grows {
                            _ = try? handle.seekToEnd()
                            try? handle.write(contentsOf: Data("one more line\n".utf8))
                        } else {
                            try? handle.truncate(atOffset: 1000)
                        }
                        try? handle.close()
                    }
                    let error = await courierError { try await client.send(request) }
                    #expect(error?.kind == .invalidBody)
                    #expect(error?.message.contains(file.path) == true, "\(String(describing: error))")
                    #expect(changed.withLockedValue { $0 })
                    #expect(!server.receivedRequests.contains { $0.path == "/multipart" })
                }
            }
        }
    }

    @Test func progressReachesTheTotalInOrderThroughTheCallbackAndTheHandle() async throws {
        try await withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("eight.bin")
            #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: 8 << 20)
            try handle.close()
            var form = MultipartForm()
            form.addFile(at: file, named: "file")
            let body = try CourierRequestBody.multipart(form)
            let total = try #require(body.length)
            try await withServer { server in
                try await withClient(server) { client in
                    let callbacks = Recorder<TransferProgress>()
                    var request = CourierRequest<SinkReport>(method: .post, path: "/sink", body: body)
                    request.uploadProgress = { callbacks.record($0) }
                    let started = ContinuousClock.now
                    let upload = client.start(request)
                    var streamed: [TransferProgress] = []
                    for await progress in upload.uploadProgress { streamed.append(progress) }
                    let report = try await upload.value
                    let elapsed = ContinuousClock.now - started
                    #expect(report.bytes == total)

                    let values = callbacks.values
                    #expect(values.first == TransferProgress(completedBytes: 0, totalBytes: total))
                    #expect(values.last == TransferProgress(completedBytes: total, totalBytes: total))
                    #expect(values.last?.fractionCompleted == 1)
                    #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
                    // The throttle's promise: one value per 1 % or per 100 ms, plus the first
                    // and the last. The 8 MiB body is 128 chunks.
                    let chunks = Int((total + 65535) / 65536)
                    #expect(values.count <= 102 + Int(elapsed / .milliseconds(100)))
                    #expect(values.count <= chunks)
                    #expect(!streamed.isEmpty)
                    #expect(streamed.last == values.last)
                    #expect(zip(streamed, streamed.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
                    #expect(Set(streamed).isSubset(of: Set(values)))
                }
            }
        }
    }

    @Test func anInMemoryBodyReportsProgressToo() async throws {
        let payload = Data(repeating: 42, count: 1 << 20)
        try await withServer { server in
            try await withClient(server) { client in
                let callbacks = Recorder<TransferProgress>()
                var request = CourierRequest<SinkReport>(method: .post, path: "/sink", body: .data(payload))
                request.uploadProgress = { callbacks.record($0) }
                let report = try await client.send(request)
                #expect(report.bytes == Int64(payload.count))
                var checksum = CRC32()
                checksum.update(with: payload)
                #expect(report.crc32 == checksum.value)
                #expect(callbacks.values.first?.completedBytes == 0)
                #expect(callbacks.values.last == TransferProgress(completedBytes: Int64(payload.count), totalBytes: Int64(payload.count)))
            }
        }
    }

    @Test func aHandleForARequestWithoutABodyEndsItsProgressEmpty() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let handle = client.start(CourierRequest<Void>(path: "/get"))
                try await handle.value
                var values: [TransferProgress] = []
                for await value in handle.uploadProgress { values.append(value) }
                #expect(values.isEmpty)
            }
        }
    }
}
