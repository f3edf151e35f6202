import CourierTesting
import Foundation
import Testing

@Suite("TestServer upload routes")
struct TestServerUploadTests {
    @Test func sinkCountsAndChecksumsWithoutKeepingTheBody() async throws {
        try await withTestServer { server in
            let body = TestServer.bytes(count: 300_000, seed: 5)
            let response = try await rawRequest(server.port, "POST", "/sink", body: body)
            #expect(response.status == 200)
            let json = try response.jsonObject()
            var checksum = CRC32()
            checksum.update(with: body)
            #expect(json["bytes"] as? Int == body.count)
            #expect(json["crc32"] as? Int == Int(checksum.value))
            #expect((json["largest_read"] as? Int ?? 0) > 0)
            let recorded = try #require(server.receivedRequests.last)
            #expect(recorded.uri == "/sink")
            #expect(recorded.body.isEmpty, "the sink keeps nothing")
        }
    }

    @Test func checksumsMatchZlibsKnownValue() {
        var checksum = CRC32()
        checksum.update(with: Array("123456789".utf8))
        #expect(checksum.value == 0xCBF4_3926)
        var pieces = CRC32()
        pieces.update(with: Array("1234".utf8))
        pieces.update(with: Array("56789".utf8))
        #expect(pieces == checksum)
    }

    @Test func multipartPartsAreListedWithDecodedExtendedFilenames() async throws {
        try await withTestServer { server in
            let body = Array(
                ("--b\r\nContent-Disposition: form-data; name=\"field\"\r\n\r\nvalue\r\n"
                    + "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"; filename*=UTF-8''%C3%A4.txt\r\n"
                    + "Content-Type: text/plain\r\n\r\ncontent\r\n--b--\r\n").utf8)
            let response = try await rawRequest(
                server.port, "POST", "/multipart", headers: ["Content-Type: multipart/form-data; boundary=b"], body: body
            )
            let json = try response.jsonObject()
            #expect(json["boundary"] as? String == "b")
            let parts = try #require(json["parts"] as? [[String: Any]])
            #expect(parts.count == 2)
            #expect(parts[0]["name"] as? String == "field" && parts[0]["content"] as? String == "value")
            #expect(parts[0]["filename"] is NSNull)
            #expect(parts[1]["filename"] as? String == "a.txt")
            #expect(parts[1]["filename*"] as? String == "ä.txt")
            #expect(parts[1]["content_type"] as? String == "text/plain")
            #expect(parts[1]["size"] as? Int == 7)

            let notMultipart = try await rawRequest(server.port, "POST", "/multipart", body: Array("x".utf8))
            #expect(notMultipart.status == 400)
        }
    }
}
