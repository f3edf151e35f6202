import Foundation
import Testing

@testable import Courier

@Suite("A file as the request body")
struct FileBodyTests {
    @Test("the body is the file's bytes, its length measured up front, read again for each attempt")
    func bytesAndLength() async throws {
        let contents = Data((0..<(3 * MultipartReader.chunkSize + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = try temporaryFile(contents)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let body = try CourierRequestBody.file(file, contentType: "application/x-tar")
        #expect(body.length == Int64(contents.count))
        #expect(body.contentType == "application/x-tar")
        #expect(try await collect(body) == contents)
        #expect(try await collect(body) == contents, "a second attempt reads the file again")
        #expect(try #require(body.bufferGauge).highWaterMark <= MultipartReader.chunkSize)
    }

    @Test("a file that changes after it was measured stops the body with invalidBody", arguments: ["shrink", "grow", "vanish"])
    func changed(change: String) async throws {
        let contents = Data(repeating: 7, count: 2 * MultipartReader.chunkSize)
        let file = try temporaryFile(contents)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let body = try CourierRequestBody.file(file)
        switch change {
        case "shrink": try Data(repeating: 7, count: 10).write(to: file)
        case "grow": try (contents + Data([1])).write(to: file)
        default: try FileManager.default.removeItem(at: file)
        }
        let error = await #expect(throws: CourierError.self) { _ = try await collect(body) }
        #expect(error?.kind == .invalidBody)
    }

    @Test("a folder, or a file that is not there, is refused when the body is made")
    func refused() throws {
        let file = try temporaryFile(Data("x".utf8))
        let folder = file.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        for url in [folder, folder.appendingPathComponent("missing.bin")] {
            let error = #expect(throws: CourierError.self) { _ = try CourierRequestBody.file(url) }
            #expect(error?.kind == .invalidBody)
        }
    }
}
