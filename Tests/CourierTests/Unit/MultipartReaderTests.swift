import Foundation
import Testing

@testable import Courier

/// Reads a body the way the transport does and returns its bytes.
func collect(_ body: CourierRequestBody) async throws -> Data {
    var bytes = Data()
    for try await chunk in body.chunks() { bytes.append(chunk) }
    return bytes
}

/// A temporary file with `contents`, removed by the caller.
func temporaryFile(_ contents: Data, named name: String = "upload.bin") throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent(name)
    try contents.write(to: url)
    return url
}

@Suite("Multipart reader")
struct MultipartReaderTests {
    @Test("a small form is encoded byte for byte, and its length is known up front")
    func encodesByteForByte() async throws {
        let file = try temporaryFile(Data("file\r\ncontent".utf8), named: "notes.txt")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        var form = try MultipartForm(boundary: "XyZ")
        form.addField("Ada Lovelace", named: "name")
        form.addData(Data([0x00, 0xFF]), named: "blob", filename: "b.bin")
        form.addFile(at: file, named: "notes")
        let body = try CourierRequestBody.multipart(form)
        let expected =
            Data(
                ("--XyZ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAda Lovelace\r\n"
                    + "--XyZ\r\nContent-Disposition: form-data; name=\"blob\"; filename=\"b.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n").utf8) + Data([0x00, 0xFF])
            + Data(
                ("\r\n--XyZ\r\nContent-Disposition: form-data; name=\"notes\"; filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\n"
                    + "file\r\ncontent\r\n--XyZ--\r\n").utf8)
        #expect(body.contentType == "multipart/form-data; boundary=XyZ")
        #expect(body.length == Int64(expected.count))
        let bytes = try await collect(body)
        #expect(bytes == expected)
        // A second pass (a redirect or a retry) reads the file again and sends the same bytes.
        #expect(try await collect(body) == expected)
    }

    @Test("a file larger than a chunk comes in pieces of at most 64 KiB, with no more held at once")
    func bounded() async throws {
        let size = 5 * MultipartReader.chunkSize + 123
        let contents = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = try temporaryFile(contents)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        var form = try MultipartForm(boundary: "b")
        form.addFile(at: file, named: "f")
        let body = try CourierRequestBody.multipart(form)
        var pieces: [Int] = []
        var bytes = Data()
        for try await chunk in body.chunks() {
            pieces.append(chunk.count)
            bytes.append(chunk)
        }
        #expect(pieces.allSatisfy { $0 <= MultipartReader.chunkSize })
        #expect(pieces.count == Int((body.length! + Int64(MultipartReader.chunkSize) - 1) / Int64(MultipartReader.chunkSize)))
        #expect(bytes.range(of: contents) != nil)
        #expect(Int64(bytes.count) == body.length)
        let gauge = try #require(body.bufferGauge)
        #expect(gauge.highWaterMark > 0 && gauge.highWaterMark <= MultipartReader.chunkSize)
    }

    @Test(
        "a file that grows, shrinks, is rewritten or disappears after it was measured is an error, not a body",
        arguments: ["grow", "shrink", "rewrite", "remove"])
    func changedFile(change: String) async throws {
        let original = Data(repeating: 7, count: 3 * MultipartReader.chunkSize)
        let file = try temporaryFile(original)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        var form = try MultipartForm(boundary: "b")
        form.addFile(at: file, named: "f")
        let body = try CourierRequestBody.multipart(form)
        var iterator = body.chunks().makeAsyncIterator()
        _ = try await iterator.next()
        let handle = try FileHandle(forWritingTo: file)
        switch change {
        case "grow":
            try handle.seekToEnd()
            try handle.write(contentsOf: Data([1]))
        case "shrink":
            try handle.truncate(atOffset: UInt64(original.count / 2))
        case "rewrite":
            try handle.write(contentsOf: Data(repeating: 9, count: 10))
            // Make the change visible even on file systems with coarse timestamps.
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: file.path)
        default:
            try FileManager.default.removeItem(at: file)
        }
        try handle.close()
        var failure: CourierError?
        do {
            while try await iterator.next() != nil {}
        } catch let error as CourierError {
            failure = error
        }
        if change == "remove" {
            // The file was already open: its bytes are still the measured ones, and they are
            // sent whole. A removal before the file is opened is an error (next test).
            #expect(failure == nil)
        } else {
            #expect(failure?.kind == .invalidBody)
            #expect(failure?.message.contains(file.path) == true)
            #expect(failure?.message.contains("changed while it was being sent") == true)
        }
    }

    @Test("a file removed between measuring and sending is an error naming it")
    func removedBeforeSending() async throws {
        let file = try temporaryFile(Data("x".utf8))
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        var form = MultipartForm()
        form.addFile(at: file, named: "f")
        let body = try CourierRequestBody.multipart(form)
        try FileManager.default.removeItem(at: file)
        let error = await #expect(throws: CourierError.self) { _ = try await collect(body) }
        #expect(error?.kind == .invalidBody)
        #expect(error?.message.contains(file.path) == true)
    }

    @Test("once a file has failed the reader keeps failing, so a body can never end early and look complete")
    func failureIsFinal() throws {
        let file = try temporaryFile(Data(repeating: 1, count: 10))
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let reader = MultipartReader(segments: [.bytes(Data("head".utf8)), .file(file, size: 11), .bytes(Data("tail".utf8))])
        let first = #expect(throws: CourierError.self) { try reader.next() }
        let second = #expect(throws: CourierError.self) { try reader.next() }
        #expect(first?.message.contains("11 bytes were measured, 10 found") == true, "\(String(describing: first))")
        #expect(second?.message == first?.message)
    }
}
