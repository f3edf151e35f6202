import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Multipart uploads with a file, over plain HTTP (where the built-in transport sends files with
/// `sendfile`) and over TLS (where it cannot). Files of many regions are sent in the 2 GiB test
/// (LargeUploadTests) and in FileRegionBodyTests; the file here stays small because the test
/// server parses and echoes the whole form.
@Suite("Multipart uploads of files, plain and over TLS")
struct FileRegionUploadTests {
    /// A form with a field, a file of 150,000 bytes and a data part; the file's bytes
    /// differ from one position to the next, so a piece sent twice or out of order shows.
    private static func form(in folder: URL) throws -> (form: MultipartForm, file: URL, wire: Data) {
        let file = folder.appendingPathComponent("large.bin")
        let contents = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) })
        try contents.write(to: file)
        var form = try MultipartForm(boundary: "large-file-boundary")
        form.addField("first", named: "title")
        form.addFile(at: file, named: "large")
        form.addData(Data("last".utf8), named: "note")
        let wire =
            Data(
                ("--large-file-boundary\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nfirst\r\n"
                    + "--large-file-boundary\r\nContent-Disposition: form-data; name=\"large\"; filename=\"large.bin\"\r\n"
                    + "Content-Type: application/octet-stream\r\n\r\n").utf8) + contents
            + Data(
                ("\r\n--large-file-boundary\r\nContent-Disposition: form-data; name=\"note\"\r\n"
                    + "Content-Type: application/octet-stream\r\n\r\nlast\r\n--large-file-boundary--\r\n").utf8)
        return (form, file, wire)
    }

    /// Sends `form` to `client` and checks that the server received exactly its bytes, and
    /// that progress reached its length.
    /// `readsFiles` says whether the file goes through memory (TLS) or not (plain HTTP).
    private static func upload(
        _ form: MultipartForm, expecting expected: Data, readsFiles: Bool, with client: CourierClient, server: TestServer
    ) async throws {
        let body = try CourierRequestBody.multipart(form)
        let values = Recorder<TransferProgress>()
        var request = CourierRequest<ParsedForm>(method: .post, path: "/multipart", body: body)
        request.uploadProgress = { values.record($0) }
        let parsed = try await client.send(request)
        #expect(parsed.parts.map(\.name) == ["title", "large", "note"])
        #expect(parsed.parts[1].size == 150_000)
        let received = try #require(server.receivedRequests.last)
        #expect(Data(received.body) == expected)
        #expect(received.header("Content-Length") == String(expected.count))
        #expect(values.values.last == TransferProgress(completedBytes: Int64(expected.count), totalBytes: Int64(expected.count)))
        let held = try #require(body.bufferGauge).highWaterMark
        if readsFiles {
            #expect(held > 0 && held <= MultipartReader.chunkSize)
        } else {
            #expect(held == 0)
        }
    }

    @Test("over plain HTTP the server parses the body and receives it byte for byte")
    func plainHTTP() async throws {
        try await withTemporaryFolder { folder in
            let (form, _, wire) = try Self.form(in: folder)
            try await withServer { server in
                try await withClient(server) { client in try await Self.upload(form, expecting: wire, readsFiles: false, with: client, server: server) }
            }
        }
    }

    @Test("over TLS the server parses the body and receives it byte for byte")
    func overTLS() async throws {
        let world = try TLSWorld()
        try await withTemporaryFolder { folder in
            let (form, _, wire) = try Self.form(in: folder)
            try await world.run { server, client in
                try await Self.upload(form, expecting: wire, readsFiles: true, with: client, server: server)
            }
        }
    }

    @Test("a file that changed size after the body was made ends the upload with a typed error")
    func changedSize() async throws {
        try await withTemporaryFolder { folder in
            let (form, file, _) = try Self.form(in: folder)
            let body = try CourierRequestBody.multipart(form)
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: 1000)
            try handle.close()
            try await withServer { server in
                try await withClient(server) { client in
                    let error = await #expect(throws: CourierError.self) {
                        try await client.send(CourierRequest<ParsedForm>(method: .post, path: "/multipart", body: body))
                    }
                    #expect(error?.kind == .invalidBody)
                    #expect(error?.message.contains("changed while it was being sent") == true, "\(String(describing: error))")
                }
            }
        }
    }
}
